// Where CDN files and database backups live: one small interface, chosen once from config
// (local disk under DATA_DIR by default, S3-compatible object storage when S3_* is set).
import type { Readable } from "node:stream";

export interface StoredObject {
  size: number;
  /** Hex SHA-256 of the content, computed while it streamed in. */
  sha256: string;
}

export interface ObjectInfo {
  size: number;
  contentType: string;
}

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export interface PutOptions {
  contentType: string;
  /**
   * Called as bytes arrive, with the running total; throwing stops the upload (the object is not kept).
   * Used to enforce a size limit while streaming.
   */
  onProgress?: (bytesSoFar: number) => void;
}

export interface DirectUrlOptions {
  fileName: string;
  contentType: string;
  expiresInSeconds: number;
  /** How the browser should treat it: shown (default) or saved as a file. */
  disposition?: "inline" | "attachment";
}

export interface ObjectStorage {
  readonly kind: "local" | "s3";
  /** Streams `body` into `key`. Nothing is kept under `key` when it throws. */
  put(key: string, body: Readable, options: PutOptions): Promise<StoredObject>;
  /** The object's bytes (or one range of them); NotFoundError when there is no such key. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size and type, or null when there is no such key. */
  stat(key: string): Promise<ObjectInfo | null>;
  /** Whether `link` works here: local disk has hard links, S3 has no such thing. */
  readonly canLink: boolean;
  /** Gives the object at `key` a second key for the same bytes, without a copy. Deleting either key leaves the other. */
  link(key: string, linkKey: string): Promise<void>;
  /** Removes `key`; no error when it is already gone. */
  delete(key: string): Promise<void>;
  /**
   * A URL a browser can fetch the content from directly (a short-lived presigned URL on S3), or null when
   * the platform serves the bytes itself (local disk).
   */
  directUrl(key: string, options: DirectUrlOptions): Promise<string | null>;
  close(): Promise<void>;
}
