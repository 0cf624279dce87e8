// CDN test chores: upload bytes as the dashboard or a script would (multipart part `file`), and list what the
// storage folder and the database hold, to show that a refused upload left nothing behind.
import fs from "node:fs";
import path from "node:path";
import type { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";

export function uploadFile(client: Client, bytes: Uint8Array | string, name = "hello.txt", type = "text/plain") {
  const form = new FormData();
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  form.append("file", new Blob([new Uint8Array(data)], { type }), name);
  return client.request("POST", "/api/cdn", { body: form });
}

/** Every file under the local storage folder (partial uploads included). */
export function storedObjects(server: TestServer): string[] {
  const root = path.join(server.config.dataDir, "storage");
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
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
