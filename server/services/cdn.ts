// The CDN file store: uploads stream from the request straight into object storage, within the owner's
// cdnBytes. The quota is never overshot, however many uploads run at once: each upload reserves bytes on the
// owner's CdnHold counter (one conditional update: held + n <= cdnBytes) before it lets them through, and on
// success gives back what it reserved beyond its size; a failed upload gives back all of it and leaves
// nothing behind, neither object nor row. Anyone may fetch a file by id (the content is public).
import { randomUUID } from "node:crypto";
import { pipeline, Transform } from "node:stream";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { AppError, InvalidRequestError, NotFoundError, StorageQuotaExceededError } from "../errors.ts";
import { formatBytes } from "../format.ts";
import type { ObjectStorage } from "../platform/storage/index.ts";
import type { AccountService } from "./accounts.ts";
import { edgeLinkKey } from "./cdn-layout.ts";
import type { Page } from "./pages.ts";
import { uploadTooLarge, type StreamedUpload, type UploadService } from "./uploads.ts";

export interface CdnFile {
  id: string;
  ownerId: string;
  name: string;
  size: bigint;
  contentType: string;
  sha256: string;
  storageKey: string;
  createdAt: Date;
}

/** Reserved at a time while an upload streams (at most what the request declared is left). */
const HOLD_STEP = 8 * 1024 * 1024;
/** What a multipart body carries besides the file (boundaries, part headers): not counted as file bytes. */
const MULTIPART_SLACK = 64 * 1024;
/** Public lookups kept in memory: a file's row never changes, only disappears (then its object is gone too). */
const PUBLIC_CACHE_SIZE = 10_000;

interface Deps {
  db: Db;
  config: Config;
  storage: ObjectStorage;
  accounts: AccountService;
  uploads: UploadService;
  logger: { error(details: object, message: string): void };
}

export function createCdnService({ db, storage, accounts, uploads, logger }: Deps) {
  const publicFiles = new Map<string, CdnFile>();
  const linkKeyOf = (file: CdnFile) => (storage.canLink ? edgeLinkKey(file) : null);

  /**
   * The edge's own name for a file it may send without asking (cdn-layout.ts); true when it was made. Without it,
   * the edge asks: slower, as correct.
   */
  async function linkForEdge(file: CdnFile): Promise<boolean> {
    const linkKey = linkKeyOf(file);
    if (!linkKey) return false;
    try {
      await storage.link(file.storageKey, linkKey);
      return true;
    } catch (error) {
      logger.error({ err: error, file: file.id }, "could not link a CDN file for the edge");
      return false;
    }
  }

  /** The edge's name goes first: once it is gone, the edge asks Slipway. */
  async function deleteStored(file: CdnFile): Promise<void> {
    const linkKey = linkKeyOf(file);
    if (linkKey) await storage.delete(linkKey);
    await storage.delete(file.storageKey);
  }

  async function ensureHold(userId: string) {
    if (await db.cdnHold.findUnique({ where: { userId } })) return;
    // Counted from the files already stored; a concurrent first upload may create it first (that is fine).
    const stored = await db.file.aggregate({ where: { ownerId: userId }, _sum: { size: true } });
    await db.cdnHold.create({ data: { userId, bytes: stored._sum.size ?? 0n } }).catch((error: { code?: string }) => {
      if (error.code !== "P2002") throw error;
    });
  }

  /** Holds `bytes` more for the user if that stays within `limit`; false (nothing held) otherwise. */
  async function reserve(userId: string, bytes: bigint, limit: bigint): Promise<boolean> {
    if (bytes <= 0n) return true;
    const { count } = await db.cdnHold.updateMany({ where: { userId, bytes: { lte: limit - bytes } }, data: { bytes: { increment: bytes } } });
    return count === 1;
  }

  async function release(userId: string, bytes: bigint) {
    if (bytes > 0n) await db.cdnHold.updateMany({ where: { userId }, data: { bytes: { decrement: bytes } } });
  }

  function quotaExceeded(limit: bigint): StorageQuotaExceededError {
    return new StorageQuotaExceededError(
      `This file does not fit in your CDN storage of ${formatBytes(Number(limit))} (cdnBytes). Delete files you no longer need or ask for a higher limit.`,
    );
  }

  /** Streams the upload into storage through a gate that reserves quota ahead of the bytes it lets pass. */
  async function store(upload: StreamedUpload, limit: bigint) {
    const { userId, stream, maxBytes, declaredBytes } = upload;
    const state = { reserved: 0n, size: 0 };
    const gate = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        state.size += chunk.length;
        if (state.size > maxBytes) return done(uploadTooLarge(maxBytes));
        const needed = BigInt(state.size) - state.reserved;
        if (needed <= 0n) return done(null, chunk);
        // Ahead by a step, but never beyond what the request declared: a parallel upload may need the rest.
        const ahead = declaredBytes === null ? BigInt(HOLD_STEP) : BigInt(Math.max(0, declaredBytes - state.size));
        const step = needed + (ahead < BigInt(HOLD_STEP) ? ahead : BigInt(HOLD_STEP));
        (async () => {
          if (await reserve(userId, step, limit)) state.reserved += step;
          else if (step > needed && (await reserve(userId, needed, limit))) state.reserved += needed;
          else throw quotaExceeded(limit);
        })().then(() => done(null, chunk), done);
      },
      flush(done) {
        // The multipart parser cuts a file at maxUploadBytes and only marks it truncated.
        done((stream as { truncated?: boolean }).truncated ? uploadTooLarge(maxBytes) : null);
      },
    });
    // The pipeline forwards the request's errors (a body cut short) to the gate, and so to storage.
    pipeline(stream, gate, () => {});
    const key = `cdn/${randomUUID()}`;
    try {
      const stored = await storage.put(key, gate, { contentType: upload.contentType });
      return { key, stored, reserved: state.reserved };
    } catch (error) {
      await release(userId, state.reserved);
      throw error;
    }
  }

  return {
    /** Stores the streamed upload `uploadId` as one of the user's files. */
    async upload(userId: string, uploadId: string): Promise<CdnFile> {
      const upload = uploads.take(userId, uploadId);
      let key: string | null = null;
      let reserved = 0n;
      try {
        const name = safeName(upload.fileName);
        const contentType = safeType(upload.contentType);
        const limit = BigInt((await accounts.quotaOf(userId)).cdnBytes);
        await ensureHold(userId);
        const held = (await db.cdnHold.findUniqueOrThrow({ where: { userId } })).bytes;
        // Refused before any byte is read when even the declared size, less the multipart framing, cannot fit.
        if (upload.declaredBytes !== null && held + BigInt(Math.max(0, upload.declaredBytes - MULTIPART_SLACK)) > limit) throw quotaExceeded(limit);
        const result = await store({ ...upload, contentType }, limit);
        key = result.key;
        reserved = result.reserved;
        const size = BigInt(result.stored.size);
        const [file] = await db.$transaction([
          db.file.create({ data: { ownerId: userId, name, size, contentType, sha256: result.stored.sha256, storageKey: key } }),
          db.cdnHold.updateMany({ where: { userId }, data: { bytes: { decrement: reserved - size } } }),
        ]);
        await linkForEdge(file);
        return file;
      } catch (error) {
        upload.stream.resume(); // the rest of the request is read and dropped, so the answer can go out
        if (key) {
          await storage.delete(key).catch(() => {});
          await release(userId, reserved);
        }
        if (error instanceof AppError) throw error;
        if ((error as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE") throw uploadTooLarge(upload.maxBytes);
        if (isClientStreamError(error)) throw new InvalidRequestError(`The upload could not be read (${(error as Error).message}). Send the file again.`);
        throw error;
      }
    },

    /** The user's files, newest first, a page at a time (`after` is the id of the previous page's last file). */
    list(userId: string, page: Page): Promise<CdnFile[]> {
      return db.file.findMany({
        where: { ownerId: userId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
      });
    },

    /** Deletes one of the user's files (another user's is not found); its bytes are free at once. */
    async remove(userId: string, id: string): Promise<void> {
      const file = await db.file.findFirst({ where: { id, ownerId: userId } });
      if (!file) throw new NotFoundError("No file with this id.");
      const linkKey = linkKeyOf(file);
      if (linkKey) await storage.delete(linkKey); // the edge stops sending it on its own before the row goes
      const [deleted] = await db.$transaction([
        db.file.deleteMany({ where: { id, ownerId: userId } }),
        db.cdnHold.updateMany({ where: { userId }, data: { bytes: { decrement: file.size } } }),
      ]);
      // A concurrent delete got there first: give its decrement back.
      if (deleted.count === 0) await db.cdnHold.updateMany({ where: { userId }, data: { bytes: { increment: file.size } } });
      publicFiles.delete(id);
      await deleteStored(file); // the link again: linkStoredFiles may have made it meanwhile
    },

    /** A file by id, for anyone (public content); null when there is none. */
    async publicFile(id: string): Promise<CdnFile | null> {
      const cached = publicFiles.get(id);
      if (cached) return cached;
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return null;
      const file = await db.file.findUnique({ where: { id } });
      if (!file) return null;
      if (publicFiles.size >= PUBLIC_CACHE_SIZE) publicFiles.delete(publicFiles.keys().next().value!);
      publicFiles.set(id, file);
      return file;
    },

    /** The cached row of a public file, without a query: undefined when it is not in the cache (ask publicFile). */
    cachedPublicFile(id: string): CdnFile | undefined {
      return publicFiles.get(id);
    },

    /** Forgets a file the server found gone from storage (deleted through another instance). */
    forget(id: string) {
      publicFiles.delete(id);
    },

    /**
     * Sets every hold back to the bytes of stored files: what uploads cut off by a crash had reserved is freed.
     * Only at boot and only for a lone instance (no REDIS_URL), when no upload can be in flight anywhere.
     */
    async reconcileHolds(): Promise<void> {
      const sums = await db.file.groupBy({ by: ["ownerId"], _sum: { size: true } });
      const stored = new Map(sums.map((s) => [s.ownerId, s._sum.size ?? 0n]));
      for (const hold of await db.cdnHold.findMany()) {
        const bytes = stored.get(hold.userId) ?? 0n;
        if (hold.bytes !== bytes) await db.cdnHold.update({ where: { userId: hold.userId }, data: { bytes } });
      }
    },

    /**
     * Links every stored file the edge may send on its own and has no link for yet (files stored before links
     * existed, or whose link could not be made). At boot, in the background: until then the edge asks Slipway.
     */
    async linkStoredFiles(): Promise<number> {
      if (!storage.canLink) return 0;
      let linked = 0;
      for (let after: string | undefined; ; ) {
        const page = await db.file.findMany({ orderBy: { id: "asc" }, take: 500, ...(after ? { cursor: { id: after }, skip: 1 } : {}) });
        for (const file of page) {
          const linkKey = edgeLinkKey(file);
          if (!linkKey || (await storage.stat(linkKey)) || !(await linkForEdge(file))) continue;
          // Deleted meanwhile, after its delete removed the link for the last time: this link must not outlive it.
          if (!(await db.file.findUnique({ where: { id: file.id }, select: { id: true } }))) await storage.delete(linkKey);
          else linked += 1;
        }
        if (page.length < 500) return linked;
        after = page.at(-1)!.id;
      }
    },

    /** Removes every stored object of a user (their rows go with the account, by cascade). */
    async deleteAllOf(userId: string): Promise<void> {
      const files = await db.file.findMany({ where: { ownerId: userId } });
      await db.file.deleteMany({ where: { ownerId: userId } });
      await db.cdnHold.deleteMany({ where: { userId } });
      for (const file of files) {
        publicFiles.delete(file.id);
        await deleteStored(file);
      }
    },
  };
}

/** The file's own name (no folders), printable, at most 255 characters; "file" when nothing is left. */
export function safeName(raw: string | undefined): string {
  const base = (raw ?? "").split(/[/\\]/).pop() ?? "";
  const printable = base.replace(/[\u0000-\u001f\u007f-\u009f]/g, "").trim();
  const name = Array.from(printable).slice(0, 255).join("");
  return name === "" || name === "." || name === ".." ? "file" : name;
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The declared type without parameters, or application/octet-stream when it is not a media type. */
export function safeType(raw: string | undefined): string {
  const type = (raw ?? "").split(";")[0].trim().toLowerCase();
  return MIME.test(type) ? type : "application/octet-stream";
}

/** The request body ended early or was not valid multipart: the client's doing, never a 500. */
function isClientStreamError(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e.code === "ERR_STREAM_PREMATURE_CLOSE" || e.code === "ECONNRESET" || /terminated early|Unexpected end|premature close|aborted/i.test(e.message ?? "");
}

export type CdnService = ReturnType<typeof createCdnService>;
