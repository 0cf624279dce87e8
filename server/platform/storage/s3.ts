// Objects in an S3-compatible bucket (AWS SDK v3). Puts stream through lib-storage's multipart Upload (5 MiB
// parts, two in flight: memory stays bounded whatever the size), hashing on the way; a failed upload is
// aborted, so nothing is kept under its key. Browsers fetch content from short-lived presigned GET URLs.
import { createHash } from "node:crypto";
import { pipeline, type Readable, Transform } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { NotFoundError } from "../../errors.ts";
import { contentDisposition } from "./disposition.ts";
import type { ByteRange, DirectUrlOptions, ObjectInfo, ObjectStorage, PutOptions, StoredObject } from "./types.ts";

export interface S3Options {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

export class S3Storage implements ObjectStorage {
  readonly kind = "s3";
  readonly canLink = false;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(options: S3Options) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
      // Path-style URLs work with every S3-compatible server (MinIO, s3rver, R2), virtual hosts need DNS.
      forcePathStyle: true,
      // Checksums only where the API requires them: not every S3-compatible server takes aws-chunked bodies.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async put(key: string, body: Readable, options: PutOptions): Promise<StoredObject> {
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
    // A source error must fail the upload (pipe() alone would leave the transform waiting forever).
    pipeline(body, measure, () => {});
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: measure, ContentType: options.contentType },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    const failed = new Promise<never>((_, reject) => measure.once("error", reject));
    try {
      await Promise.race([upload.done(), failed]);
    } catch (error) {
      await upload.abort().catch(() => {});
      // A single-part upload may have completed before the error surfaced: never keep it.
      await this.delete(key).catch(() => {});
      throw error;
    }
    return { size, sha256: hash.digest("hex") };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error)) throw new NotFoundError("No such stored object.");
      throw error;
    }
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: Number(head.ContentLength ?? 0), contentType: head.ContentType ?? "application/octet-stream" };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async link(): Promise<void> {
    throw new Error("S3 storage has no links.");
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async directUrl(key: string, options: DirectUrlOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentType: options.contentType,
      ResponseContentDisposition: contentDisposition(options.disposition ?? "inline", options.fileName),
      ResponseCacheControl: "private, max-age=300",
    });
    return getSignedUrl(this.client, command, { expiresIn: options.expiresInSeconds });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

function isMissing(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return error.name === "NoSuchKey" || error.name === "NotFound" || error.$metadata?.httpStatusCode === 404;
}
