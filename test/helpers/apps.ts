// Helpers for hosting tests: zip a fixture folder, upload it, wait for the deployment to settle, and talk to
// the deployed app through the platform's port with its Host header.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import yazl from "yazl";
import type { Client } from "./client.ts";

export const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/apps");

/** A zip of every file under `dir` (plus `extra` files given as name → contents). */
export function zipFolder(dir: string | null, extra: Record<string, string> = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const walk = (folder: string, prefix: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full, `${prefix}${entry.name}/`);
      else zip.addFile(full, `${prefix}${entry.name}`);
    }
  };
  if (dir) walk(dir, "");
  for (const [name, contents] of Object.entries(extra)) zip.addBuffer(Buffer.from(contents), name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks))).on("error", reject);
  });
}

export async function uploadZip(client: Client, slug: string, zip: Buffer) {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(zip)], { type: "application/zip" }), "app.zip");
  return client.request("PUT", `/api/apps/${slug}/deploy`, { body: form });
}

const SETTLED = new Set(["LIVE", "FAILED", "CANCELED", "SUPERSEDED"]);

/** Polls the app until the deployment has settled; returns it. */
export async function waitForDeployment(client: Client, slug: string, id: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.get(`/api/apps/${slug}`);
    const deployment = res.body.deployments?.find((d: { id: string }) => d.id === id);
    if (deployment && SETTLED.has(deployment.status)) return deployment;
    if (Date.now() > deadline) throw new Error(`deployment ${id} did not settle: ${JSON.stringify(deployment)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Deploys a zip and waits for the outcome. */
export async function deploy(client: Client, slug: string, zip: Buffer) {
  const res = await uploadZip(client, slug, zip);
  if (res.status !== 202) throw new Error(`deploy failed: ${res.status} ${JSON.stringify(res.body)}`);
  return waitForDeployment(client, slug, res.body.id);
}

export async function waitFor<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface AppAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request to `base` (the server's 127.0.0.1 address) with the given Host; the path is sent exactly as written. */
export function request(
  base: string,
  host: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: http.Agent } = {},
): Promise<AppAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname, port, path, method: options.method ?? "GET", headers: { host, ...options.headers }, agent: options.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** An HTTP request to `<slug>.<appsDomain>` through the platform's own port. */
export function requestApp(baseUrl: string, host: string, pathname = "/", options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<AppAnswer> {
  return request(baseUrl, `${host}:${new URL(baseUrl).port}`, pathname, options);
}

export interface InstanceView {
  index: number;
  name: string;
  instanceId: string | null;
  state: string;
  startedAt: string | null;
  restarts: number;
}

/** An app's web instances as its details show them (App.processes, type web). */
export function webInstances(app: { processes: { type: string; instances: InstanceView[] }[] }): InstanceView[] {
  return app.processes.find((p) => p.type === "web")?.instances ?? [];
}
