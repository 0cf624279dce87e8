// GET /metrics: the platform's own Prometheus text (prom-client), parsed as Prometheus does: loopback callers only
// without METRICS_TOKEN (403 to anyone else, as the platform sees the caller), that bearer token with it (401
// without it or with another); the API's requests counted by route pattern and status, deployments by status with
// their durations, running instances, the deploy queue, dropped log lines and Node's event-loop lag.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, zipFolder } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const TOKEN = "metrics-token-0123456789abcdef";
let open: TestServer;
let guarded: TestServer;

beforeAll(async () => {
  [open, guarded] = await Promise.all([startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" }), startServer({ METRICS_TOKEN: TOKEN })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([open?.close(), guarded?.close()]);
});

/** Each sample line as {name, labels, value}: the exposition format's grammar, enough for these metrics. */
function samples(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

const value = (all: ReturnType<typeof samples>, name: string, labels: Record<string, string> = {}) =>
  all.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

describe("GET /metrics", () => {
  it("answers loopback callers without a token, and refuses another address as the platform sees it (behind a trusted proxy)", async () => {
    const res = await fetch(`${open.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    // Fastify's request.ip is the socket's here; a forwarded address is not trusted without an edge, so a stranger
    // reaching the port directly from another machine is refused: shown through the inject API with its address.
    const stranger = await open.slipway.app.inject({ method: "GET", url: "/metrics", remoteAddress: "203.0.113.7", headers: { host: new URL(open.url).host } });
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json().error.message).toMatch(/set METRICS_TOKEN/);
  });

  it("asks for METRICS_TOKEN as a bearer token once it is set", async () => {
    const none = await fetch(`${guarded.url}/metrics`);
    expect([none.status, none.headers.get("www-authenticate")]).toEqual([401, expect.stringMatching(/^Bearer/)]);
    expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: "Bearer not-the-token-at-all-0000" } })).status).toBe(401);
    const ok = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
  });

  it("counts requests by route and status, deployments by status with their durations, instances, the queue and event-loop lag", async () => {
    const owner = new Client(open.url);
    await owner.signup();
    const slug = `metrics-${process.pid}`;
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    const before = samples(await (await fetch(`${open.url}/metrics`)).text());
    for (let i = 0; i < 3; i++) expect((await owner.get(`/api/apps/${slug}`)).status).toBe(200);
    expect((await owner.get("/api/apps/no-such-app-here")).status).toBe(404);
    const counted = samples(await (await fetch(`${open.url}/metrics`)).text());
    expect((await deploy(owner, slug, await zipFolder(null, { "package.json": JSON.stringify({ name: "m", version: "1.0.0" }), "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);` }))).status).toBe("LIVE");

    const after = samples(await (await fetch(`${open.url}/metrics`)).text());
    const appRoute = { method: "GET", route: "/api/apps/:slug" };
    expect((value(counted, "slipway_http_requests_total", { ...appRoute, status: "200" }) ?? 0) - (value(before, "slipway_http_requests_total", { ...appRoute, status: "200" }) ?? 0)).toBe(3);
    expect((value(counted, "slipway_http_requests_total", { ...appRoute, status: "404" }) ?? 0) - (value(before, "slipway_http_requests_total", { ...appRoute, status: "404" }) ?? 0)).toBe(1);
    expect(value(after, "slipway_deployments", { status: "LIVE" })).toBeGreaterThanOrEqual(1);
    expect(value(after, "slipway_deployment_duration_seconds_count", { status: "LIVE" })).toBeGreaterThanOrEqual(1);
    expect(value(after, "slipway_deployment_duration_seconds_sum", { status: "LIVE" })).toBeGreaterThan(0);
    expect(value(after, "slipway_running_instances")).toBeGreaterThanOrEqual(1);
    expect(value(after, "slipway_deploy_queue_depth")).toBe(0);
    expect(value(after, "slipway_log_lines_dropped")).toBe(0);
    expect(value(after, "slipway_nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
