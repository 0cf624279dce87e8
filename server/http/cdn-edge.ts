// The edge's CDN lookups (EDGE=caddy, local storage, EDGE_CDN_FILES=caddy; server/platform/edge/caddy-cdn.ts),
// answered before Fastify: Caddy asks Slipway about every download and then sends the bytes itself, so this
// answer is on the path of every CDN byte. It holds the same decisions as the content path (contentAnswer:
// 304, 416, the range, the headers) without the bytes, in one cached lookup and one stat. A cached file is
// answered synchronously, most often with headers built once per file. Through Fastify's routing and hooks, with
// the stat in the thread pool, and with a promise and fresh headers per lookup, each one cost several times more
// (bench/RESULTS.md, section cdn). Only requests carrying Caddy's token are taken; every other one goes on to Fastify.
import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { safeEqual } from "../auth/secrets.ts";
import { NotFoundError, toAppError, type AppError } from "../errors.ts";
import { EDGE_TOKEN_HEADER, SENDFILE_HEADER, SENDFILE_RANGE_HEADER } from "../platform/edge/caddy-cdn.ts";
import type { Platform } from "../platform/index.ts";
import type { CdnFile } from "../services/cdn.ts";
import type { LocalStorage } from "../platform/storage/index.ts";
import { contentAnswer, UNSATISFIABLE_BODY } from "./cdn.ts";
import { restErrorBody } from "./errors.ts";
import { SECURITY_HEADERS } from "./security-headers.ts";

/** `/cdn/<id>/<type>/<subtype>/<sha256>/<name>` or (given out before) `/cdn/<id>/<name>`, with an optional query. */
const CONTENT_PATH = /^\/cdn\/([^/?]+)\/(?:[^/?]+\/[^/?]+\/[^/?]+\/)?[^/?]+(?:\?.*)?$/;
const TOKEN_HEADER = EDGE_TOKEN_HEADER.toLowerCase();

interface Logger {
  error(details: object, message: string): void;
}

/** The lookup's answer to a request with no validator and no range, the same for each one: built once per cached file row (rows never change). */
interface WholeFileLookup {
  filePath: string;
  headers: Record<string, string>;
}

/** A request listener for the platform's requests: true when it answered (an edge lookup), false to pass it on. */
export function edgeLookups(platform: Platform, storage: LocalStorage, token: string, log: Logger) {
  const cdn = platform.services.cdn;
  const hasToken = (given: string | string[] | undefined) => typeof given === "string" && safeEqual(given, token);
  const wholeFileLookups = new WeakMap<CdnFile, WholeFileLookup | null>();

  /** null for a key outside the CDN folder (every CDN key is `cdn/<uuid>`): such a file is never named to Caddy. */
  function wholeFileLookup(file: CdnFile): WholeFileLookup | null {
    let lookup = wholeFileLookups.get(file);
    if (lookup === undefined) {
      const name = file.storageKey.startsWith("cdn/") ? file.storageKey.slice("cdn/".length) : "";
      // file_server sends the file and answers the range itself (length, Content-Range, 206). No body, and said so:
      // without a length Node would send an empty chunked body, which costs Caddy more.
      const headers = { ...contentAnswer(file, {}).headers, "Content-Length": "0", [SENDFILE_HEADER]: `/${name}`, [SENDFILE_RANGE_HEADER]: "" };
      lookup = name && !name.includes("/") ? { filePath: storage.pathOf(file.storageKey), headers } : null;
      wholeFileLookups.set(file, lookup);
    }
    return lookup;
  }

  function answer(req: IncomingMessage, res: ServerResponse, file: CdnFile): void {
    const lookup = wholeFileLookup(file);
    const conditional = req.headers["if-none-match"] !== undefined || req.headers.range !== undefined;
    const content = conditional ? contentAnswer(file, req.headers) : null;
    if (content?.status === 304) return void res.writeHead(304, content.headers).end();
    if (content?.status === 416) {
      return void res.writeHead(416, { ...content.headers, "Content-Length": String(UNSATISFIABLE_BODY.length) }).end(req.method === "HEAD" ? undefined : UNSATISFIABLE_BODY);
    }
    // Gone from the disk behind Slipway's back (another instance deleted it): Slipway's 404, not Caddy's empty one.
    if (lookup === null || !isFileNow(lookup.filePath)) {
      cdn.forget(file.id);
      return sendError(res, new NotFoundError("No file with this id."));
    }
    const range = content?.range;
    if (!range) return void res.writeHead(200, lookup.headers).end();
    res.writeHead(200, { ...lookup.headers, ...content!.headers, [SENDFILE_RANGE_HEADER]: `bytes=${range.start}-${range.end}` }).end();
  }

  function fail(res: ServerResponse, error: unknown): void {
    const appError = toAppError(error);
    if (!appError.expose) log.error({ err: error }, "CDN lookup for the edge failed");
    sendError(res, appError);
  }

  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if ((req.method !== "GET" && req.method !== "HEAD") || !req.url?.startsWith("/cdn/") || !hasToken(req.headers[TOKEN_HEADER])) return false;
    const match = CONTENT_PATH.exec(req.url);
    const id = match ? decoded(match[1]) : null;
    // Anything else under /cdn/ is Fastify's to answer (404, 400), as for any client.
    if (id === null) return false;
    // A cached row is answered at once, without a promise: this runs for every download the edge sends.
    const cached = cdn.cachedPublicFile(id);
    if (cached) {
      try {
        answer(req, res, cached);
      } catch (error) {
        fail(res, error);
      }
    } else {
      cdn
        .publicFile(id)
        .then((file) => (file ? answer(req, res, file) : sendError(res, new NotFoundError("No file with this id."))))
        .catch((error: unknown) => fail(res, error));
    }
    return true;
  };
}

function sendError(res: ServerResponse, error: AppError): void {
  if (res.headersSent) return void res.destroy();
  const body = JSON.stringify(restErrorBody(error));
  res.writeHead(error.status, {
    ...SECURITY_HEADERS,
    ...error.headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/**
 * Synchronous on purpose, as nginx stats and opens files in its event loop: the stat of a local file costs a few
 * µs, while fs.promises.stat's round trip through the thread pool cost this thread about 35 µs per lookup.
 */
function isFileNow(filePath: string): boolean {
  return fs.statSync(filePath, { throwIfNoEntry: false })?.isFile() ?? false;
}

function decoded(segment: string): string | null {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
