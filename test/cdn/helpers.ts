// CDN test chores: upload bytes as the dashboard or a script would (multipart part `file`), and list what the
// storage folder and the database hold, to show that a refused upload left nothing behind.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";

export function uploadFile(client: Client, bytes: Uint8Array | string, name = "hello.txt", type = "text/plain") {
  const form = new FormData();
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  form.append("file", new Blob([new Uint8Array(data)], { type }), name);
  return client.request("POST", "/api/cdn", { body: form });
}

/**
 * Every file under the local storage folder (partial uploads included), once each: a file's link for the edge
 * (cdn-edge/, a second name for the same bytes) is not another object, but keeps the object there while it lasts.
 */
export function storedObjects(server: TestServer): string[] {
  const root = path.join(server.config.dataDir, "storage");
  if (!fs.existsSync(root)) return [];
  const byInode = new Map<number, string>();
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const { ino } = fs.statSync(file);
    if (!byInode.has(ino)) byInode.set(ino, file);
  }
  return [...byInode.values()];
}

/** Follows the public URL's redirect by hand and fetches the content with `headers`. */
export async function fetchContent(url: string, headers: Record<string, string> = {}) {
  const redirect = await fetch(url, { redirect: "manual" });
  await redirect.arrayBuffer();
  if (redirect.status !== 302) throw new Error(`expected a redirect from ${url}, got ${redirect.status}`);
  const location = new URL(redirect.headers.get("location")!, url).toString();
  const res = await fetch(location, { headers });
  return { res, location, body: Buffer.from(await res.arrayBuffer()) };
}

export const MiB = 1024 * 1024;

/**
 * Uploads like a client that does not announce the size: multipart sent in chunks (Transfer-Encoding: chunked,
 * no Content-Length), so the server can only count the bytes as they come.
 */
export function uploadChunked(client: Client, size: number, name = "stream.bin"): Promise<{ status: number; body: any }> {
  const url = new URL("/api/cdn", client.base);
  const boundary = "chunkedboundary";
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "POST",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "transfer-encoding": "chunked", ...(client.cookie ? { cookie: client.cookie } : {}) },
    });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c)).on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.write(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 7);
    let sent = 0;
    const more = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", more);
      }
      req.end(`\r\n--${boundary}--\r\n`);
    };
    more();
  });
}
