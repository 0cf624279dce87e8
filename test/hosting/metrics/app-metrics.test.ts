// Per-app metrics on the real server with real sandboxed Node apps (the local runtime, cgroup v1): a CPU-burning app
// shows near one core, a memory-growing app its growth, and the router counts requests and 5xx exactly. Rounds are
// run by the test on the injected clock (test/helpers/metrics.ts); only the CPU being measured takes real time. Then
// GraphQL and the live subscription, the REST route's checks (401, 404, 400 naming the limit), the rows of several
// platform instances summed (a cluster), and the retention.
import fs from "node:fs";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bucketOf, encodeHistogram, newHistogram } from "../../../server/hosting/metrics/latency.ts";
import { Client } from "../../helpers/client.ts";
import { deploy, requestApp, waitFor, zipFolder } from "../../helpers/apps.ts";
import { FakeClock } from "../../helpers/fake-clock.ts";
import { metricsRoundAt } from "../../helpers/metrics.ts";
import { startServer, type TestServer } from "../../helpers/server.ts";

const START = Date.parse("2031-03-01T00:00:00Z");
const MINUTE = 60_000;
const clock = new FakeClock(START);
let server: TestServer;
let owner: Client;
const slug = (name: string) => `${name}-${process.pid}`;

const nodeApp = (code: string) => ({ "package.json": JSON.stringify({ name: "m", version: "1.0.0" }), "server.js": code });
const APPS = {
  // Burns a core for 4 s after GET /burn only: the rest of the time it leaves the CPU to the other tests.
  burn: nodeApp(`
    let until = 0;
    function spin() { const end = Math.min(Date.now() + 20, until); while (Date.now() < end); if (Date.now() < until) setImmediate(spin); }
    require("http").createServer((q, s) => { if (q.url === "/burn") { until = Date.now() + 4000; setImmediate(spin); } s.end("burning"); }).listen(process.env.PORT);`),
  grow: nodeApp(`
    const kept = [];
    require("http").createServer((q, s) => { if (q.url === "/grow") kept.push(Buffer.alloc(96 << 20, 1)); s.end("kept " + kept.length); }).listen(process.env.PORT);`),
  count: nodeApp(`
    require("http").createServer((q, s) => { s.statusCode = q.url === "/fail" ? 500 : 200; s.end("ok"); }).listen(process.env.PORT);`),
};

const round = (time: number) => metricsRoundAt(clock, server.slipway.platform.appMetrics, time);
const realMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const metricsOf = async (name: string, query: string) => (await owner.get(`/api/apps/${slug(name)}/metrics?${query}`)).body;
const valueAt = (series: [string, number | null][], time: number) => series.find(([t]) => Date.parse(t) === time)?.[1] ?? null;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" }, { clock });
  owner = new Client(server.url);
  await owner.signup();
  for (const [name, files] of Object.entries(APPS)) {
    expect((await owner.post("/api/apps", { slug: slug(name) })).status).toBe(201);
    expect((await owner.post(`/api/apps/${slug(name)}/env`, { METRICS_TEST_APP: slug(name) })).status).toBe(200);
    expect((await deploy(owner, slug(name), await zipFolder(null, files))).status).toBe("LIVE");
  }
}, 180_000);
afterAll(() => server?.close());

describe("app metrics", () => {
  it("shows a CPU-burning app near one core and a memory-growing app's growth, by process type too", async () => {
    // Minute 1: two samples two real seconds apart give the CPU rate; memory is read at each. What the burning
    // process used meanwhile, as the kernel counts it per process (/proc), is the truth to compare with.
    const burner = pidOf(slug("burn"));
    expect((await requestApp(server.url, `${slug("burn")}.localhost`, "/burn")).body).toBe("burning");
    await round(START + MINUTE + 5_000);
    const [cpuBefore, at] = [cpuSecondsOf(burner), performance.now()];
    await realMs(2_000);
    await round(START + MINUTE + 15_000);
    const used = (cpuSecondsOf(burner) - cpuBefore) / ((performance.now() - at) / 1000);
    // Minute 3: the grown memory (96 MiB more, kept), in every sample of it.
    await round(START + 2 * MINUTE + 5_000);
    expect((await requestApp(server.url, `${slug("grow")}.localhost`, "/grow")).body).toBe("kept 1");
    await round(START + 3 * MINUTE);
    await round(START + 4 * MINUTE);

    const range = `from=${new Date(START).toISOString()}&to=${new Date(START + 4 * MINUTE).toISOString()}&step=60`;
    const burn = await metricsOf("burn", range);
    expect(burn.step).toBe(60);
    const cores = valueAt(burn.series.cpu, START + MINUTE)!;
    // Its quota is one core (APP_CPU_PERCENT=100): near it on an idle machine, less where other work takes a share.
    expect(Math.abs(cores - used)).toBeLessThan(Math.max(0.1, used * 0.25));
    expect(cores).toBeGreaterThan(0.3);
    expect(cores).toBeLessThan(1.1);
    expect(valueAt(burn.byProcess.web.cpu, START + MINUTE)).toBe(cores);
    expect(valueAt(burn.byProcess.web.restarts, START + MINUTE)).toBe(0);
    expect(valueAt(burn.series.memoryLimit, START + MINUTE)).toBe(512 * 1024 * 1024);

    const grow = await metricsOf("grow", range);
    const before = valueAt(grow.series.memory, START + MINUTE)!;
    const after = valueAt(grow.series.memory, START + 3 * MINUTE)!;
    expect(after - before).toBeGreaterThan(80 * 1024 * 1024);
    expect(valueAt(grow.series.cpu, START + MINUTE)!).toBeLessThan(0.2);
  }, 60_000);

  it("counts the router's requests and 5xx exactly, with their latency", async () => {
    const host = `${slug("count")}.localhost`;
    const minute = START + 5 * MINUTE;
    await round(minute + 1_000);
    for (let i = 0; i < 7; i++) expect((await requestApp(server.url, host, "/")).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await requestApp(server.url, host, "/fail")).status).toBe(500);
    await round(minute + MINUTE + 1_000);

    const counted = await metricsOf("count", `from=${new Date(minute).toISOString()}&to=${new Date(minute + 2 * MINUTE).toISOString()}&step=1m`);
    // The minute under way is not written yet: null, not 0.
    expect(counted.series.requests).toEqual([[new Date(minute).toISOString(), 10], [new Date(minute + MINUTE).toISOString(), null]]);
    expect(counted.series.errors.map(([, v]: [string, number]) => v)).toEqual([3, null]);
    const p50 = valueAt(counted.series.latencyP50, minute)!;
    const p95 = valueAt(counted.series.latencyP95, minute)!;
    expect(p50).toBeGreaterThan(0);
    expect(p95).toBeGreaterThanOrEqual(p50);
    expect(valueAt(counted.series.latencyP50, minute + MINUTE)).toBeNull();
    // A wider step sums the minutes.
    const hourly = await metricsOf("count", `from=${new Date(START).toISOString()}&to=${new Date(START + 60 * MINUTE).toISOString()}&step=1h`);
    expect(hourly.series.requests).toEqual([[new Date(START).toISOString(), 10]]);
  }, 30_000);

  it("answers the same through GraphQL, and live after each minute recorded", async () => {
    const query = `query($slug: String!) { app(slug: $slug) { metrics(from: "${new Date(START + 5 * MINUTE).toISOString()}", to: "${new Date(START + 6 * MINUTE).toISOString()}") { step series { requests errors } } } }`;
    const res = await owner.graphql(query, { slug: slug("count") });
    expect(res.body.data.app.metrics).toEqual({ step: 60, series: { requests: [[new Date(START + 5 * MINUTE).toISOString(), 10]], errors: [[new Date(START + 5 * MINUTE).toISOString(), 3]] } });

    const ws = createClient({ url: `${server.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: withCookie(owner.cookie!), retryAttempts: 0 });
    const seen: number[] = [];
    const dispose = ws.subscribe(
      { query: `subscription { appMetrics(slug: "${slug("count")}", seconds: 600) { series { requests } } }` },
      { next: (value) => void seen.push(sum((value.data as { appMetrics: { series: { requests: [string, number | null][] } } }).appMetrics.series.requests)), error: () => {}, complete: () => {} },
    );
    try {
      await waitFor(async () => seen.length > 0, 5_000, "the subscription's first answer");
      const host = `${slug("count")}.localhost`;
      for (let i = 0; i < 2; i++) await requestApp(server.url, host, "/");
      await round(clock.now() + MINUTE);
      await waitFor(async () => seen.at(-1) === seen[0] + 2, 5_000, "the answer after the minute was written");
    } finally {
      dispose();
      await ws.dispose();
    }
  }, 30_000);

  it("refuses strangers, bad ranges and ranges past the limits, naming the limit", async () => {
    const anonymous = new Client(server.url);
    expect((await anonymous.get(`/api/apps/${slug("count")}/metrics`)).status).toBe(401);
    const stranger = new Client(server.url);
    await stranger.signup();
    expect((await stranger.get(`/api/apps/${slug("count")}/metrics`)).status).toBe(404);

    const bad = await owner.get(`/api/apps/${slug("count")}/metrics?from=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.from).toMatch(/ISO 8601/);
    const now = clock.now();
    const old = await owner.get(`/api/apps/${slug("count")}/metrics?from=${new Date(now - 8 * 86_400_000).toISOString()}`);
    expect(old.status).toBe(400);
    expect(old.body.error.message).toMatch(/7 days \(METRICS_RETENTION_DAYS\)/);
    const many = await owner.get(`/api/apps/${slug("count")}/metrics?from=${new Date(now - 2 * 86_400_000).toISOString()}&step=60`);
    expect(many.status).toBe(400);
    expect(many.body.error.message).toMatch(/At most 1000 points/);
    expect((await owner.get(`/api/apps/${slug("count")}/metrics?step=90`)).status).toBe(400);
    expect((await owner.get(`/api/apps/${slug("count")}/metrics?from=${new Date(now).toISOString()}&to=${new Date(now - MINUTE).toISOString()}`)).status).toBe(400);
    // The default: the last hour, one point a minute.
    const recent = await owner.get(`/api/apps/${slug("count")}/metrics`);
    expect(recent.status).toBe(200);
    expect(recent.body.series.cpu).toHaveLength(60);
  });

  it("sums the rows every platform instance of a cluster wrote for a minute, merging their latencies", async () => {
    const { db } = server.slipway.platform;
    const app = await db.app.findUniqueOrThrow({ where: { slug: slug("grow") } });
    const minute = new Date(START); // a minute this process recorded no request of the app in
    const fast = encodeHistogramOf(Array(90).fill(2));
    const slow = encodeHistogramOf(Array(10).fill(400));
    await db.appRequestMinute.create({ data: { appId: app.id, minute, source: "instance-a", requests: 90, errors: 0, latency: fast } });
    await db.appRequestMinute.create({ data: { appId: app.id, minute, source: "instance-b", requests: 10, errors: 4, latency: slow } });
    const range = `from=${minute.toISOString()}&to=${new Date(minute.getTime() + MINUTE).toISOString()}`;
    const { series } = await metricsOf("grow", range);
    expect(series.requests[0][1]).toBe(100);
    expect(series.errors[0][1]).toBe(4);
    expect(series.latencyP50[0][1]).toBeLessThan(3);
    expect(series.latencyP95[0][1]).toBeGreaterThan(390);
  });

  it("deletes rows older than METRICS_RETENTION_DAYS", async () => {
    const { db, appMetrics } = server.slipway.platform;
    const app = await db.app.findUniqueOrThrow({ where: { slug: slug("count") } });
    const old = new Date(clock.now() - 8 * 86_400_000);
    await db.appUsageMinute.create({ data: { appId: app.id, minute: old, process: "web", cpu: 1, memory: 1, memoryLimit: 1, restarts: 0 } });
    await db.appRequestMinute.create({ data: { appId: app.id, minute: old, source: "gone", requests: 1, errors: 0, latency: "{}" } });
    await appMetrics.prune();
    expect(await db.appUsageMinute.count({ where: { minute: { lte: old } } })).toBe(0);
    expect(await db.appRequestMinute.count({ where: { minute: { lte: old } } })).toBe(0);
    expect(await db.appRequestMinute.count({ where: { appId: app.id } })).toBeGreaterThan(0);
  });
});

/** A latency histogram of these times, encoded as AppRequestMinute.latency stores it. */
function encodeHistogramOf(times: number[]): string {
  const histogram = newHistogram();
  for (const ms of times) histogram[bucketOf(ms)]++;
  return encodeHistogram(histogram);
}

const sum = (series: [string, number | null][]) => series.reduce((total, [, v]) => total + (v ?? 0), 0);

/** The host pid of the app's node process: the one whose environment names the app (METRICS_TEST_APP). */
function pidOf(app: string): number {
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const env = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (env.includes(`METRICS_TEST_APP=${app}`) && argv[0].endsWith("node") && argv.includes("server.js")) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no process of ${app}`);
}

/** CPU seconds (user + system) the process used so far (in clock ticks of 1/100 s, Linux's USER_HZ). */
function cpuSecondsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A WebSocket class that sends the session cookie, as the browser does. */
function withCookie(cookie: string) {
  return class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers: { cookie } });
    }
  };
}
