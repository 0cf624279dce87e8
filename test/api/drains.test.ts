// Log drains on the real server, forwarding a real sandboxed app's lines to receivers started here
// (OUTBOUND_ALLOWED_HOSTS lists 127.0.0.1): syslog over TCP and over TLS (a CA made for this run, trusted through
// DRAIN_CA_FILE) parsed strictly as octet-counted RFC 5424, and HTTPS batches of JSON lines. Build, runtime and run
// lines arrive with the app's slug and the process; a receiver with an untrusted certificate gets nothing; a drain
// that is down slows neither the app nor the API, and its drops are counted and said in the app's log. The 400s
// for URLs the outbound guard refuses, the limit per app, and ownership.
import https from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, requestApp, waitFor, zipFolder } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { createLocalCa, type LocalCa } from "../helpers/local-ca.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { startSyslogReceiver, type SyslogReceiver } from "../helpers/syslog.ts";

interface JsonLine {
  timestamp: string;
  app: string;
  process: string;
  kind: string;
  stream: string;
  line: string;
}

/** An HTTPS receiver keeping every JSON line POSTed to it. */
async function startHttpsReceiver(tls: { key: string; cert: string }) {
  const lines: JsonLine[] = [];
  const contentTypes = new Set<string>();
  const server = https.createServer(tls, (req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (raw += chunk)).on("end", () => {
      contentTypes.add(String(req.headers["content-type"]));
      for (const text of raw.split("\n").filter(Boolean)) lines.push(JSON.parse(text));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/logs?token=abc`;
  return { url, lines, contentTypes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let server: TestServer;
let ca: LocalCa;
let plain: SyslogReceiver;
let secure: SyslogReceiver;
let untrusted: SyslogReceiver;
let batches: Awaited<ReturnType<typeof startHttpsReceiver>>;
let owner: Client;
const slug = `drained-${process.pid}`;

const APP = {
  "package.json": JSON.stringify({ name: "drained", version: "1.0.0", scripts: { build: "echo building the drained app" } }),
  "server.js": `
    require("http").createServer((q, s) => {
      if (q.url.startsWith("/flood")) {
        const n = Number(new URL(q.url, "http://x").searchParams.get("n"));
        for (let i = 0; i < n; i++) console.log("flood " + i);
      }
      s.end("ok");
    }).listen(process.env.PORT, () => console.log("listening on " + process.env.PORT));`,
};

beforeAll(async () => {
  ca = createLocalCa();
  [plain, secure, untrusted, batches] = await Promise.all([
    startSyslogReceiver(),
    startSyslogReceiver({ tls: ca.server }),
    startSyslogReceiver({ tls: ca.stranger }),
    startHttpsReceiver(ca.server),
  ]);
  server = await startServer({ OUTBOUND_ALLOWED_HOSTS: "127.0.0.1", DRAIN_CA_FILE: ca.caFile, DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await Promise.all([plain?.close(), secure?.close(), untrusted?.close(), batches?.close()]);
  ca?.remove();
});

const drains = () => owner.get(`/api/apps/${slug}/drains`);
const addDrain = (url: string) => owner.post(`/api/apps/${slug}/drains`, { url });

describe("drain routes", () => {
  it("refuses the unauthenticated (401) and strangers (404)", async () => {
    expect((await new Client(server.url).get(`/api/apps/${slug}/drains`)).status).toBe(401);
    const stranger = new Client(server.url);
    await stranger.signup();
    expect((await stranger.get(`/api/apps/${slug}/drains`)).status).toBe(404);
    expect((await stranger.post(`/api/apps/${slug}/drains`, { url: `syslog://127.0.0.1:${plain.port}` })).status).toBe(404);
  });

  it.each([
    ["ftp://127.0.0.1/logs", /ftp:\/\/ is not supported/],
    ["http://127.0.0.1/logs", /http:\/\/ is not supported/],
    ["syslog://user:pw@127.0.0.1:514", /credentials/],
    ["syslog://127.0.0.2:514", /127\.0\.0\.2, a loopback address.*OUTBOUND_ALLOWED_HOSTS/],
    ["syslog+tls://169.254.169.254:6514", /link-local/],
    ["https://10.0.0.1/logs", /private/],
    ["syslog://[::1]:514", /loopback/],
    ["syslog://127.0.0.1", /host:port/],
    ["syslog://127.0.0.1:514/path", /host:port/],
    ["not a url", /not a URL/],
  ])("refuses %s: 400 naming url", async (url, message) => {
    const res = await addDrain(url);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.message).toMatch(message);
    expect(res.body.error.details.fields).toHaveProperty("url");
  });

  it("adds (201), lists and removes (204) drains, at most 5 per app (403)", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await addDrain(`syslog://127.0.0.1:${plain.port}`);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ id: expect.stringMatching(/^drn_/), url: `syslog://127.0.0.1:${plain.port}`, sent: 0, dropped: 0, lastError: null });
      ids.push(res.body.id);
    }
    const sixth = await addDrain(`syslog://127.0.0.1:${plain.port}`);
    expect(sixth.status).toBe(403);
    expect(sixth.body.error.code).toBe("quota_exceeded");
    expect((await drains()).body.map((d: { id: string }) => d.id)).toEqual(ids);
    for (const id of ids) expect((await owner.request("DELETE", `/api/apps/${slug}/drains/${id}`)).status).toBe(204);
    expect((await owner.request("DELETE", `/api/apps/${slug}/drains/${ids[0]}`)).status).toBe(404);
    expect((await drains()).body).toEqual([]);
  });

  it("answers the drains on the App type in GraphQL", async () => {
    const res = await owner.graphql(`query($slug: String!) { app(slug: $slug) { drains { id url } } }`, { slug });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.app.drains).toEqual([]);
  });
});

describe("forwarding", () => {
  const fromApp = (r: SyslogReceiver) => r.messages.filter((m) => m.appName === slug);

  beforeAll(async () => {
    for (const url of [`syslog://127.0.0.1:${plain.port}`, `syslog+tls://127.0.0.1:${secure.port}`, batches.url, `syslog+tls://127.0.0.1:${untrusted.port}`]) {
      expect((await addDrain(url)).status).toBe(201);
    }
    expect((await deploy(owner, slug, await zipFolder(null, APP))).status).toBe("LIVE");
  }, 120_000);

  it("sends build and runtime lines over syslog TCP and TLS, octet-counted RFC 5424, with the slug and the process", async () => {
    for (const receiver of [plain, secure]) {
      await waitFor(async () => fromApp(receiver).some((m) => m.msg.startsWith("listening on")), 15_000, "the runtime line");
      expect(receiver.errors).toEqual([]);
      const build = fromApp(receiver).filter((m) => m.msgId === "build");
      expect(build.length).toBeGreaterThan(0);
      expect(build.every((m) => m.procId === "build" && m.hostname === "127.0.0.1")).toBe(true);
      expect(build.some((m) => m.msg.includes("building the drained app"))).toBe(true);
      expect(fromApp(receiver).find((m) => m.msg.startsWith("listening on"))).toMatchObject({ procId: "web.1", msgId: "runtime", facility: 1, severity: 6 });
    }
  });

  it("sends batches of JSON lines over HTTPS, trusting DRAIN_CA_FILE", async () => {
    await waitFor(async () => batches.lines.some((l) => l.line.startsWith("listening on")), 15_000, "the runtime line over HTTPS");
    expect(batches.contentTypes).toEqual(new Set(["application/x-ndjson"]));
    expect(batches.lines.find((l) => l.line.startsWith("listening on"))).toMatchObject({ app: slug, process: "web.1", kind: "runtime", stream: "stdout" });
    expect(batches.lines.some((l) => l.kind === "build" && l.process === "build")).toBe(true);
  });

  it("sends a run's lines as run.<id>", async () => {
    const run = await owner.post(`/api/apps/${slug}/runs`, { command: "node -e \"console.log('hello from a run')\"" });
    expect(run.status).toBe(202);
    const message = await waitFor(async () => fromApp(plain).find((m) => m.msg === "hello from a run"), 30_000, "the run's line");
    expect(message).toMatchObject({ procId: `run.${run.body.id}`, msgId: "run" });
  });

  it("sends nothing to a receiver whose certificate the CA did not sign, and says why", async () => {
    const view = await waitFor(async () => (await drains()).body.find((d: { url: string; lastError: string | null }) => d.url.endsWith(`:${untrusted.port}`) && d.lastError), 15_000, "the TLS error");
    expect(view.lastError).toMatch(/certificate/i);
    expect(view.lastErrorAt).toEqual(expect.any(String));
    expect(untrusted.messages).toEqual([]);
  });

  it("counts what each drain sent", async () => {
    await waitFor(async () => (await drains()).body.find((d: { url: string; sent: number }) => d.url === `syslog://127.0.0.1:${plain.port}` && d.sent > 0), 15_000, "the sent count");
  });
});

describe("a drain that is down", () => {
  it("slows neither the app nor the API; its drops are counted and said in the app's log, the live drains lose nothing", async () => {
    const dead = await addDrain(`syslog://127.0.0.1:${await freePort()}`);
    expect(dead.status).toBe(201);
    const appId = (await server.slipway.platform.db.app.findUniqueOrThrow({ where: { slug } })).id;
    await waitFor(async () => server.slipway.platform.drains.drainsOf(appId).some((d) => d.id === dead.body.id), 10_000, "the forwarder to hold the new drain");
    const before = fromFlood(plain).length;
    const flood = await requestApp(server.url, `${slug}.localhost`, "/flood?n=15000");
    expect(flood.status).toBe(200);
    // The receiver that is up gets every flood line, in order.
    const lines = await waitFor(async () => fromFlood(plain).length - before >= 15_000 && fromFlood(plain).slice(before), 20_000, "every flood line");
    expect(lines).toEqual(Array.from({ length: 15_000 }, (_, i) => `flood ${i}`));
    // Meanwhile the dead drain retries with back-off: the app and the API answer as usual.
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      expect((await requestApp(server.url, `${slug}.localhost`, "/")).status).toBe(200);
      expect((await owner.get(`/api/apps/${slug}`)).status).toBe(200);
      expect(performance.now() - started).toBeLessThan(5000);
    }
    const view = await waitFor(async () => (await drains()).body.find((d: { id: string; dropped: number }) => d.id === dead.body.id && d.dropped >= 5000), 20_000, "the drops counted");
    expect(view.lastError).toMatch(/ECONNREFUSED/);
    await waitFor(async () => {
      const logs = await owner.get(`/api/apps/${slug}/logs?kind=runtime&limit=200`);
      return logs.body.some((l: { stream: string; line: string }) => l.stream === "system" && l.line.includes(`dropped`) && l.line.includes(dead.body.id));
    }, 20_000, "the drops said in the app's log");
    expect(plain.errors).toEqual([]);
  }, 90_000);
});

function fromFlood(receiver: SyslogReceiver): string[] {
  return receiver.messages.filter((m) => m.appName === slug && m.msg.startsWith("flood ")).map((m) => m.msg);
}
