// Uploads on their way from an HTTP request to the operation that uses them. The REST adapter hands the
// operation an id, and the operation claims the upload by it; only the uploader can, and an unclaimed upload
// is dropped with its request. Two kinds:
// - staged (a zip deploy): streamed to disk here first (never whole in memory, cut off past the uploader's
//   maxUploadBytes), since the build reads it as a file;
// - streamed (a CDN file): the request's live part stream, claimed and piped straight into object storage,
//   so the bytes are written once, where they stay.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError, InvalidRequestError, NotFoundError, PayloadTooLargeError } from "../errors.ts";
import { formatBytes } from "../format.ts";

interface Staged {
  userId: string;
  file: string;
  size: number;
}

/** A request's file part, not read yet: whoever takes it must consume it. */
export interface StreamedUpload {
  userId: string;
  stream: Readable;
  fileName: string;
  /** As the client declared it (the part's Content-Type). */
  contentType: string;
  /** The request's Content-Length: an upper bound on the file's size, when the client sent one. */
  declaredBytes: number | null;
  maxBytes: number;
}

export function createUploadService(dir: string) {
  const staged = new Map<string, Staged>();
  const streamed = new Map<string, StreamedUpload>();

  return {
    /** Streams `source` to disk; PayloadTooLargeError (and nothing kept) past maxBytes. */
    async stage(userId: string, source: Readable, maxBytes: number): Promise<{ id: string; size: number }> {
      await fs.promises.mkdir(dir, { recursive: true });
      const id = randomUUID();
      const file = path.join(dir, `staged-${id}.zip`);
      let size = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(size > maxBytes ? uploadTooLarge(maxBytes) : null, chunk);
        },
      });
      // Opened before streaming: a write stream that opens its own file can create it after a failed
      // pipeline's cleanup has run, leaving the file behind.
      const handle = await fs.promises.open(file, "wx", 0o600);
      try {
        await pipeline(source, limit, fs.createWriteStream("", { fd: handle }));
        // The multipart parser stops a file at its own limit (the same maxBytes) and only marks it truncated.
        if ((source as Readable & { truncated?: boolean }).truncated) throw uploadTooLarge(maxBytes);
      } catch (error) {
        await fs.promises.rm(file, { force: true });
        if (error instanceof AppError) throw error;
        // The body ended early or is not valid multipart: the client's doing, never a 500.
        throw new InvalidRequestError(`The upload could not be read (${(error as Error).message}). Send the zip again.`);
      }
      staged.set(id, { userId, file, size });
      return { id, size };
    },

    /** Hands a staged upload's file to `use` (only its uploader may), then deletes it. */
    async consume<T>(userId: string, id: string, use: (file: string) => Promise<T>): Promise<T> {
      const upload = staged.get(id);
      if (!upload || upload.userId !== userId) throw new NotFoundError("No uploaded zip with this id: upload it with PUT /api/apps/:slug/deploy.");
      staged.delete(id);
      try {
        return await use(upload.file);
      } finally {
        await fs.promises.rm(upload.file, { force: true });
      }
    },

    /** Registers a request's live file part under a new id, for the operation to take. */
    offer(upload: StreamedUpload): string {
      const id = randomUUID();
      streamed.set(id, upload);
      return id;
    },

    /** The live upload `id` (only its uploader may take it); the caller must consume or drop its stream. */
    take(userId: string, id: string): StreamedUpload {
      const upload = streamed.get(id);
      if (!upload || upload.userId !== userId) throw new NotFoundError("No upload with this id: send the file with POST /api/cdn (multipart part file).");
      streamed.delete(id);
      return upload;
    },

    /** Deletes an upload its request did not claim (a streamed one is drained, so the request can be answered). */
    async discard(id: string): Promise<void> {
      const live = streamed.get(id);
      if (live) {
        streamed.delete(id);
        live.stream.resume();
        return;
      }
      const upload = staged.get(id);
      if (!upload) return;
      staged.delete(id);
      await fs.promises.rm(upload.file, { force: true });
    },
  };
}

/** The one answer to an upload past the uploader's maxUploadBytes, whoever notices it first. */
export function uploadTooLarge(maxBytes: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The upload is larger than your limit of ${formatBytes(maxBytes)} (maxUploadBytes). Make the zip smaller or ask for a higher limit.`);
}

export type UploadService = ReturnType<typeof createUploadService>;
