// Objects as files under one folder. Keys are the platform's own (never user input), and are still checked
// to stay inside the folder. A put streams to a temporary name and renames on success, so a failed or
// interrupted upload never leaves a partial object under its key.
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { NotFoundError } from "../../errors.ts";
import type { ByteRange, ObjectInfo, ObjectStorage, PutOptions, StoredObject } from "./types.ts";

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export class LocalStorage implements ObjectStorage {
  readonly kind = "local";
  readonly canLink = true;

  constructor(private readonly root: string) {}

  /** The file holding `key` (the local CDN serves it with sendfile-friendly streams). */
  pathOf(key: string): string {
    if (!KEY.test(key) || key.split("/").some((part) => part === "." || part === "..")) throw new Error(`Invalid storage key: ${key}`);
    return path.join(this.root, key);
  }

  async put(key: string, body: Readable, options: PutOptions): Promise<StoredObject> {
    const target = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const temporary = path.join(path.dirname(target), `.partial-${randomUUID()}`);
    const hash = createHash("sha256");
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        hash.update(chunk);
        try {
          options.onProgress?.(size);
        } catch (error) {
          return done(error as Error);
        }
        done(null, chunk);
      },
    });
    // Opened before streaming, so a failed pipeline's cleanup cannot race the stream's own open.
    const handle = await fs.promises.open(temporary, "wx", 0o600);
    try {
      await pipeline(body, measure, fs.createWriteStream("", { fd: handle }));
      await fs.promises.rename(temporary, target);
    } catch (error) {
      await fs.promises.rm(temporary, { force: true });
      throw error;
    }
    return { size, sha256: hash.digest("hex") };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.pathOf(key);
    const handle = await fs.promises.open(file, "r").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") throw new NotFoundError("No such stored object.");
      throw error;
    });
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    try {
      const stats = await fs.promises.stat(this.pathOf(key));
      return { size: stats.size, contentType: "application/octet-stream" };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async link(key: string, linkKey: string): Promise<void> {
    const target = this.pathOf(linkKey);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    try {
      await fs.promises.link(this.pathOf(key), target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error; // made before: the same file
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async directUrl(): Promise<string | null> {
    return null;
  }

  async close(): Promise<void> {}
}
