// Public CDN content. `GET /api/cdn/:id` redirects (302) to the bytes: on S3 a presigned URL of short life, on
// local disk the platform's own content path (`/cdn/:id/…/:name`, cdn-layout.ts), read from the file here, with a
// strong ETag (the SHA-256), If-None-Match (304), one Range (206, 416 when unsatisfiable) and immutable caching (a
// file's id never names other bytes). The content path is outside /api: no session, no rate limit, one cached lookup.
// No upload runs script on the platform's origin: every answer carries `Content-Security-Policy: sandbox`
// (an opaque origin, no script) and nosniff, and anything but plain media is a download (attachment).
import fs from "node:fs";
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { NotFoundError } from "../errors.ts";
import type { Platform } from "../platform/index.ts";
import { contentDisposition, LocalStorage } from "../platform/storage/index.ts";
import type { CdnFile } from "../services/cdn.ts";
import { contentPath, dispositionOf } from "../services/cdn-layout.ts";
import { parseRange, type ByteRange } from "./range.ts";

/** How long a presigned S3 URL works. */
const PRESIGNED_SECONDS = 300;
/** Bodies up to this size are read whole and sent in one write. */
const WHOLE_READ_MAX = 2 * 1024 * 1024;

/**
 * When the edge sends local CDN files itself, its lookups are answered before Fastify (cdn-edge.ts); every other
 * request for the content path (straight to Slipway, or from an edge loaded by another instance) gets the bytes here.
 */
export async function cdnRoutes(app: FastifyInstance, { platform }: { platform: Platform }) {
  const { storage, services } = platform;

  app.get<{ Params: { id: string } }>("/api/cdn/:id", async (request, reply) => {
    const file = await services.cdn.publicFile(request.params.id);
    if (!file) throw new NotFoundError("No file with this id.");
    const direct = await storage.directUrl(file.storageKey, {
      fileName: file.name,
      contentType: file.contentType,
      expiresInSeconds: PRESIGNED_SECONDS,
      disposition: dispositionOf(file),
    });
    // The presigned URL changes and expires; the local path is stable, so the redirect may be cached briefly.
    reply.header("Cache-Control", direct ? "no-store" : "public, max-age=300");
    return reply.redirect(direct ?? contentPath(file), 302);
  });

  if (!(storage instanceof LocalStorage)) return;
  const local = storage;
  // A connection that was sent a streamed body is not counted idle when the server closes (Node closes only idle
  // keep-alive connections), so it would hold the close open until its keep-alive timeout: close it ourselves.
  const sockets = new Set<Socket>();
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    for (const socket of sockets) if (!(socket as { _httpMessage?: unknown })._httpMessage) socket.destroy();
    done();
  });

  // The path names the representation (cdn-layout.ts), which only the edge relies on: the stored row decides here.
  // `/cdn/:id/:name` is the shape of content paths given out before.
  const content = async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const file = await services.cdn.publicFile(request.params.id);
    if (!file) throw new NotFoundError("No file with this id.");
    const socket = request.raw.socket;
    if (!sockets.has(socket)) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    }
    reply.raw.once("finish", () => {
      if (closing) socket.end();
    });
    return serveLocal(request, reply, file, local.pathOf(file.storageKey), () => services.cdn.forget(file.id));
  };
  app.get("/cdn/:id/:type/:subtype/:sha256/:name", content);
  app.get("/cdn/:id/:name", content);
}

/** What the content path answers for a file, before any bytes are read (shared with the edge's lookup, cdn-edge.ts). */
export type ContentAnswer =
  | { status: 200 | 206; headers: Record<string, string>; range: ByteRange | null }
  | { status: 304 | 416; headers: Record<string, string>; range?: undefined };

/** `headers`: the request's, for its validators (If-None-Match, If-Range) and its Range. */
export function contentAnswer(file: CdnFile, headers: IncomingHttpHeaders): ContentAnswer {
  const size = Number(file.size);
  const etag = `"${file.sha256}"`;
  const answer: Record<string, string> = {
    ETag: etag,
    "Cache-Control": "public, max-age=31536000, immutable",
    "Accept-Ranges": "bytes",
    "Content-Security-Policy": "sandbox",
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "cross-origin",
    // A name only for downloads: shown content is saved under its path's last segment, which is the name.
    "Content-Disposition": dispositionOf(file) === "inline" ? "inline" : contentDisposition("attachment", file.name),
  };
  if (matches(headers["if-none-match"], etag)) return { status: 304, headers: answer };
  const range = ifRange(first(headers["if-range"]), etag) ? parseRange(headers.range, size) : null;
  if (range === "unsatisfiable") {
    return { status: 416, headers: { ...answer, "Content-Range": `bytes */${size}`, "Content-Type": "text/plain; charset=utf-8" } };
  }
  answer["Content-Type"] = file.contentType;
  return { status: range ? 206 : 200, headers: answer, range };
}

export const UNSATISFIABLE_BODY = "Range Not Satisfiable";

async function serveLocal(request: FastifyRequest, reply: FastifyReply, file: CdnFile, filePath: string, gone: () => void) {
  const answer = contentAnswer(file, request.headers);
  if (answer.status === 304 || answer.status === 416) {
    return withContentHeaders(reply, answer.headers).status(answer.status).send(answer.status === 416 ? UNSATISFIABLE_BODY : undefined);
  }
  const { range } = answer;
  const size = Number(file.size);
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(filePath, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    gone();
    throw new NotFoundError("No file with this id.");
  }
  withContentHeaders(reply, answer.headers);
  if (range) {
    reply.status(206).header("Content-Range", `bytes ${range.start}-${range.end}/${size}`).header("Content-Length", range.end - range.start + 1);
  } else {
    reply.header("Content-Length", size);
  }
  if (request.method === "HEAD" || size === 0) {
    await handle.close();
    return reply.send();
  }
  const length = range ? range.end - range.start + 1 : size;
  if (length <= WHOLE_READ_MAX) {
    // Small bodies in one read and one write: cheaper than a stream's chunks, events and backpressure.
    const buffer = borrowReadBuffer();
    let bytesRead: number;
    try {
      ({ bytesRead } = await handle.read(buffer, 0, length, range?.start ?? 0));
    } catch (error) {
      returnReadBuffer(buffer);
      throw error;
    } finally {
      await handle.close();
    }
    // Back once the answer is closed, after the read: finished (its bytes are with the kernel) or cut (its writes
    // cancelled). An answer closed already never gives it back, and the buffer is simply collected.
    reply.raw.once("close", () => returnReadBuffer(buffer));
    return reply.send(buffer.subarray(0, bytesRead));
  }
  // Larger bodies go out through two reused buffers, written straight to the response (Fastify's lifecycle ends
  // here, its onResponse hooks still run): chunks allocated per read are external memory, and at disk speed they
  // made V8 run a full collection of the whole heap several times a second (bench/RESULTS.md, section cdn).
  reply.hijack();
  reply.raw.writeHead(reply.statusCode, reply.getHeaders() as OutgoingHttpHeaders);
  void sendInChunks(handle, reply.raw, range?.start ?? 0, length).catch((error: unknown) => {
    request.log.error({ err: error }, "CDN download failed mid-answer");
    reply.raw.destroy();
  });
}

/**
 * Writes `length` bytes of the file from `start`: one buffer is read into while the other is written, and a buffer is
 * read into again only once the kernel has taken its bytes (the write's callback), so a slow client holds two buffers
 * and nothing more. Both go back to the pool once the answer has closed and no read is under way.
 */
async function sendInChunks(handle: fs.promises.FileHandle, res: ServerResponse, start: number, length: number): Promise<void> {
  const buffers = [borrowReadBuffer(), borrowReadBuffer()];
  const written: Promise<boolean>[] = [Promise.resolve(true), Promise.resolve(true)];
  const closed = new Promise<void>((resolve) => (res.closed ? resolve() : res.once("close", () => resolve())));
  try {
    let position = start;
    const end = start + length;
    for (let turn = 0; position < end; turn ^= 1) {
      // False: the write failed (the client hung up); its callback came with the error.
      if (!(await written[turn]) || res.destroyed) return;
      const buffer = buffers[turn];
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, end - position), position);
      if (bytesRead === 0) throw new Error(`The file ended ${end - position} bytes before its recorded size.`);
      position += bytesRead;
      written[turn] = new Promise((resolve) => res.write(buffer.subarray(0, bytesRead), (error) => resolve(!error)));
    }
    res.end();
  } finally {
    await handle.close();
    void closed.then(() => buffers.forEach(returnReadBuffer));
  }
}

// Whole-file reads go into reused buffers: a fresh one per download is external memory that keeps V8's young
// generation collecting (about 45 scavenges a second at 1 MiB downloads, bench/RESULTS.md, section cdn).
const readBuffers: Buffer[] = [];
const READ_BUFFERS_KEPT = 8;

function borrowReadBuffer(): Buffer {
  return readBuffers.pop() ?? Buffer.allocUnsafeSlow(WHOLE_READ_MAX);
}

function returnReadBuffer(buffer: Buffer): void {
  if (readBuffers.length < READ_BUFFERS_KEPT) readBuffers.push(buffer);
}

/** The content's headers replace the platform's page defaults: content is never framed as a page of ours anyway. */
function withContentHeaders(reply: FastifyReply, headers: Record<string, string>): FastifyReply {
  return reply.removeHeader("X-Frame-Options").headers(headers);
}

/** If-None-Match holds the ETag (weak comparison, RFC 9110 13.1.2) or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

/** Range applies unless If-Range names another representation. */
function ifRange(header: string | undefined, etag: string): boolean {
  return header === undefined || header.trim() === etag;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
