import path from "node:path";
import type { Config } from "../../config.ts";
import { LocalStorage } from "./local.ts";
import type { ObjectStorage } from "./types.ts";

export type { ObjectStorage, StoredObject, ObjectInfo, ByteRange, PutOptions, DirectUrlOptions } from "./types.ts";
export { LocalStorage } from "./local.ts";
export { contentDisposition } from "./disposition.ts";

/**
 * The storage driver the config chooses: S3-compatible object storage when S3_* is set (its SDK loaded only
 * then), else local disk under DATA_DIR/storage.
 */
export async function createStorage(config: Pick<Config, "sharedDataDir" | "s3">): Promise<ObjectStorage> {
  if (config.s3) {
    const { S3Storage } = await import("./s3.ts");
    return new S3Storage(config.s3);
  }
  return new LocalStorage(path.join(config.sharedDataDir, "storage"));
}
