import path from "node:path";
import { LocalStorage } from "./local.ts";
import type { ObjectStorage } from "./types.ts";

export type { ObjectStorage, StoredObject, ObjectInfo, ByteRange, PutOptions } from "./types.ts";
export { LocalStorage } from "./local.ts";

/** The storage driver the config chooses (local disk under DATA_DIR/storage until S3 is configured). */
export function createStorage(config: { dataDir: string }): ObjectStorage {
  return new LocalStorage(path.join(config.dataDir, "storage"));
}
