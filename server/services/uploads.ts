// Zips on their way from an HTTP upload to a deployment. The REST adapter streams the upload to disk here
// (never whole in memory, cut off past the uploader's maxUploadBytes) and hands the operation an id; the
// deploy mutation claims it. Only the uploader can claim it, and an unclaimed upload is deleted with its request.
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

export function createUploadService(dir: string) {
  const staged = new Map<string, Staged>();

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

    /** Deletes an upload its request did not claim. */
    async discard(id: string): Promise<void> {
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
