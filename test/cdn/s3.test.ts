// The S3 driver end to end, against a real S3-compatible server (s3rver) started here: uploads stream through
// lib-storage (a 12 MiB file goes up in three parts), the public URL redirects to a presigned GET of short life
// that serves the bytes, deletes remove the object, and a refused upload leaves no object in the bucket.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { Client } from "../helpers/client.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { MiB, uploadChunked, uploadFile } from "./helpers.ts";

const BUCKET = "slipway-cdn";
let s3rver: S3rver;
let s3Dir: string;
let endpoint: string;
let server: TestServer;
let owner: Client;
let s3: S3Client;
/** What the S3 server saw created, by key: ObjectCreated:Put (one request) or :Post (a completed multipart upload). */
const created = new Map<string, string>();

beforeAll(async () => {
  s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-s3-"));
  const port = await freePort();
  s3rver = new S3rver({ address: "127.0.0.1", port, silent: true, directory: s3Dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  s3rver.on("event", (event: { Records: { eventName: string; s3: { object: { key: string } } }[] }) => {
    for (const record of event.Records) created.set(record.s3.object.key, record.eventName);
  });
  await s3rver.run();
  endpoint = `http://127.0.0.1:${port}`;
  server = await startServer({
    S3_ENDPOINT: endpoint,
    S3_BUCKET: BUCKET,
    S3_REGION: "us-east-1",
    S3_ACCESS_KEY_ID: "S3RVER",
    S3_SECRET_ACCESS_KEY: "S3RVER",
    DEFAULT_CDN_BYTES: String(40 * MiB),
    DEFAULT_MAX_UPLOAD_BYTES: String(20 * MiB),
    DEFAULT_REQUESTS_PER_MINUTE: "100000",
  });
  owner = new Client(server.url);
  await owner.signup();
  s3 = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } });
}, 60_000);
afterAll(async () => {
  s3?.destroy();
  await server?.close();
  await s3rver?.close();
  fs.rmSync(s3Dir, { recursive: true, force: true });
});

const keys = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => o.Key);
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

async function follow(url: string) {
  const redirect = await fetch(url, { redirect: "manual" });
  await redirect.arrayBuffer();
  expect(redirect.status).toBe(302);
  const location = redirect.headers.get("location")!;
  const res = await fetch(location);
  return { redirect, location, res, body: new Uint8Array(await res.arrayBuffer()) };
}

describe("configuration", () => {
  it("refuses to boot with only some of the S3 variables, naming the missing ones", () => {
    expect(() => loadConfig({ S3_ENDPOINT: endpoint, S3_BUCKET: BUCKET })).toThrow(/set together \(missing: S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY\)/);
    expect(server.slipway.platform.storage.kind).toBe("s3");
  });
});

describe("S3 storage", () => {
  it("uploads a file, redirects its public URL to a presigned GET of five minutes, and serves the bytes", async () => {
    const text = new TextEncoder().encode("stored in a bucket");
    const file = (await uploadFile(owner, text, "note.txt", "text/plain")).body;
    expect(file.sha256).toBe(sha256(text));
    const key = (await server.slipway.platform.db.file.findUniqueOrThrow({ where: { id: file.id } })).storageKey;
    expect(await keys()).toContain(key);
    expect(created.get(key)).toBe("ObjectCreated:Put");
    const { redirect, location, res, body } = await follow(file.url);
    expect(redirect.headers.get("cache-control")).toBe("no-store");
    expect(location.startsWith(`${endpoint}/${BUCKET}/`)).toBe(true);
    expect(new URL(location).searchParams.get("X-Amz-Expires")).toBe("300");
    expect(res.status).toBe(200);
    expect(Buffer.from(body).toString()).toBe("stored in a bucket");
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(res.headers.get("content-disposition")).toMatch(/^inline; filename="note.txt"/);
  });

  it("streams a 12 MiB file up in several parts and serves it back whole, and in ranges (s3rver answers suffix ranges wrongly: a closed one here)", async () => {
    const data = new Uint8Array(12 * MiB);
    for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) % 251;
    const res = await uploadFile(owner, data, "big.bin", "application/octet-stream");
    expect(res.status).toBe(201);
    expect(res.body.size).toBe(12 * MiB);
    expect(res.body.sha256).toBe(sha256(data));
    const row = await server.slipway.platform.db.file.findUniqueOrThrow({ where: { id: res.body.id } });
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: row.storageKey }));
    expect(head.ContentLength).toBe(12 * MiB);
    expect(created.get(row.storageKey)).toBe("ObjectCreated:Post"); // a completed multipart upload
    const { body } = await follow(res.body.url);
    expect(sha256(body)).toBe(sha256(data));
    const redirect = await fetch(res.body.url, { redirect: "manual" });
    const ranged = await fetch(redirect.headers.get("location")!, { headers: { range: `bytes=${data.length - 4096}-${data.length - 1}` } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(Buffer.from(data.subarray(data.length - 4096)))).toBe(true);
  });

  it("serves active types from the bucket as downloads", async () => {
    const file = (await uploadFile(owner, "<script>document.title='x'</script>", "page.html", "text/html")).body;
    const { res } = await follow(file.url);
    expect(res.headers.get("content-type")).toBe("text/html");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="page.html"/);
  });

  it("deletes the object with the file, and keeps no object of a refused upload (after parts went up)", async () => {
    const file = (await uploadFile(owner, "short-lived", "gone.txt")).body;
    const key = (await server.slipway.platform.db.file.findUniqueOrThrow({ where: { id: file.id } })).storageKey;
    expect((await owner.request("DELETE", `/api/cdn/${file.id}`)).status).toBe(204);
    expect(await keys()).not.toContain(key);
    expect((await fetch(file.url, { redirect: "manual" })).status).toBe(404);

    const before = await keys();
    // Past maxUploadBytes after several 5 MiB parts were sent: the multipart upload is aborted.
    const tooBig = await uploadChunked(owner, 20 * MiB + 1);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe("payload_too_large");
    expect(await keys()).toEqual(before);
    const used = (await owner.get("/api/me")).body.quota.usage.cdnBytes;
    const held = (await server.slipway.platform.db.cdnHold.findFirstOrThrow()).bytes;
    expect(Number(held)).toBe(used);
  });
});
