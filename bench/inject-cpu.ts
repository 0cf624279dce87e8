// CPU time per request (process.cpuUsage) through app.inject, 10 concurrent, cases interleaved over 7 rounds: a
// cross-check of `npm run bench` that a loaded shared machine disturbs less (no sockets, no load generator; CPU
// time rather than wall time). Slipway with and without the /graphql fast path, and plain Fastify answering the
// same JSON. Run: NODE_ENV=production N=1000 npx tsx bench/inject-cpu.ts
import fs from "node:fs"; import os from "node:os"; import path from "node:path";
import Fastify from "fastify";
import { buildSlipway } from "../server/app.ts"; import { loadConfig } from "../server/config.ts";
import { signUp } from "./lib/slipway.ts";
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-probe-"));
const config = loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", DEFAULT_REQUESTS_PER_MINUTE: "100000000", DEFAULT_MAX_APPS: "20", ...(process.env.FAST === "0" ? { GRAPHQL_FAST_PATH: "false" } : {}) });
const s = await buildSlipway(config); const url = await s.listen();
const cookie = await signUp(url, `probe-${process.pid}`);
for (let i = 0; i < 20; i++) await fetch(`${url}/api/apps`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ slug: `probe-app-${i}`, name: `P ${i}`, description: "An app never deployed", repo: "octo/bench", branch: "main" }) });
const me = (await s.app.inject({ url: "/api/me", headers: { cookie } })).json();
const apps = (await s.app.inject({ url: "/api/apps", headers: { cookie } })).json();
const dataDir2 = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-probe-"));
const y = await buildSlipway(loadConfig({ DATA_DIR: dataDir2, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", DEFAULT_REQUESTS_PER_MINUTE: "100000000", GRAPHQL_FAST_PATH: "false" }));
const yurl = await y.listen(); const ycookie = await signUp(yurl, `probe-y-${process.pid}`);
const plain = Fastify(); plain.get("/me", async () => me); plain.get("/apps", async () => apps); await plain.ready();
const Q = "query Viewer { viewer { user { id name preferred_username: preferredUsername email avatar role status createdAt } quota { requestsPerMinute maxApps maxDatabases maxInstances cdnBytes maxUploadBytes usage { apps databases instances cdnBytes } } } }";
const cases: [string, () => Promise<unknown>][] = [
  ["plain /me", () => plain.inject({ url: "/me" })],
  ["REST /api/me", () => s.app.inject({ url: "/api/me", headers: { cookie } })],
  ["POST /graphql viewer", () => s.app.inject({ method: "POST", url: "/graphql", headers: { cookie, "content-type": "application/json" }, payload: JSON.stringify({ query: Q }) })],
  ["POST /graphql via yoga", () => y.app.inject({ method: "POST", url: "/graphql", headers: { cookie: ycookie, "content-type": "application/json" }, payload: JSON.stringify({ query: Q }) })],
  ["plain /apps", () => plain.inject({ url: "/apps" })],
  ["REST /api/apps", () => s.app.inject({ url: "/api/apps", headers: { cookie } })],
];
const n = Number(process.env.N ?? 3000);
const results: Record<string, number[]> = {};
for (let round = 0; round < 7; round++) for (const [name, f] of cases) {
  for (let i = 0; i < 300; i++) await f();
  const c = process.cpuUsage();
  await Promise.all(Array.from({ length: 10 }, async () => { for (let i = 0; i < n / 10; i++) await f(); }));
  const d = process.cpuUsage(c); (results[name] ??= []).push((d.user + d.system) / n);
}
for (const [name, v] of Object.entries(results)) { v.sort((a, b) => a - b); console.log(name.padEnd(24), Math.round(v[3]), "cpu µs/req (median of 7)", v.map(Math.round).join(" ")); }
await s.close(); await y.close(); for (const dir of [dataDir, dataDir2]) fs.rmSync(dir, { recursive: true, force: true });
