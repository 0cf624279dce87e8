// Sleeping apps on the real server with a real sandboxed Node app (the runtime under test): an app with
// sleepAfterMinutes that saw no request for that long stops its web processes and is SLEEPING; the next requests are
// held while it starts (once, however many arrive together) and then answered; a WebSocket upgrade wakes it too, and
// an open WebSocket keeps it awake; a start that fails answers the crashed page instead of holding the request. The
// sleep timer runs on the injected clock: the test moves it instead of waiting minutes.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, waitFor, zipFolder } from "../helpers/apps.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { idleFor as idle, idleMinutes } from "../helpers/sleep.ts";

let server: TestServer;
let owner: Client;
const slug = `sleepy-${process.pid}`;
const clock = new FakeClock(Date.parse("2031-01-01T00:00:00Z"));

// Each process answers with its own start marker; it fails at start while FAIL_AT_START is set. An Upgrade is
// answered 101, then the socket stays open until the client ends it.
const APP = {
  "package.json": JSON.stringify({ name: "sleepy", version: "1.0.0" }),
  "server.js": `
    if (process.env.FAIL_AT_START) { console.error("cannot start: FAIL_AT_START is set"); process.exit(3); }
    const started = process.pid + "-" + Math.random().toString(36).slice(2);
    const server = require("http").createServer((q, s) => s.end("awake " + started));
    server.on("upgrade", (req, socket) => {
      socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n\\r\\n");
      socket.on("data", (d) => socket.write(d));
      socket.on("end", () => socket.end());
    });
    server.listen(process.env.PORT);`,
};

const app = async () => (await owner.get(`/api/apps/${slug}`)).body;
const runtimeLines = async () => {
  const res = await owner.get(`/api/apps/${slug}/logs?kind=runtime&limit=200`);
  return res.body.map((l: { line: string }) => l.line) as string[];
};

const idleFor = (ms: number) => idle(clock, server.slipway.platform.sleeps, ms);

async function putToSleep(): Promise<void> {
  await idleMinutes(clock, server.slipway.platform.sleeps, 1);
  expect((await app()).status).toBe("SLEEPING");
}

/** An Upgrade to the app through the router: resolves with the socket once the app answered 101. */
function upgrade(): Promise<{ status: number; socket: import("node:net").Socket | null }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: new URL(server.url).port, path: "/", headers: { host: `${slug}.localhost`, connection: "Upgrade", upgrade: "websocket" } });
    req.on("upgrade", (res, socket) => resolve({ status: res.statusCode!, socket }));
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode!, socket: null });
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  // A start that fails is given up sooner than the default minute (an orchestrator knows it only then).
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", START_TIMEOUT_SECONDS: "15" }, { clock });
  owner = new Client(server.url);
  await owner.signup();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  expect((await deploy(owner, slug, await zipFolder(null, APP))).status).toBe("LIVE");
}, 120_000);
afterAll(() => server?.close());

describe("sleeping apps", () => {
  it("gives new apps the operator's DEFAULT_SLEEP_AFTER_MINUTES, which their owner may change", async () => {
    const other = await startServer({ DEFAULT_SLEEP_AFTER_MINUTES: "20" });
    try {
      const user = new Client(other.url);
      await user.signup();
      const created = await user.post("/api/apps", { slug: `defaults-${process.pid}` });
      expect(created.body).toMatchObject({ sleepAfterMinutes: 20, sleepWorkers: false });
      expect((await user.request("PATCH", `/api/apps/defaults-${process.pid}`, { json: { sleepAfterMinutes: null } })).body.sleepAfterMinutes).toBeNull();
    } finally {
      await other.close();
    }
  });

  it("refuses a sleepAfterMinutes outside 1–10080 with 400 naming the field; null turns sleep off (REST and GraphQL)", async () => {
    for (const bad of [0, 10_081, -3]) {
      const res = await owner.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: bad } });
      expect(res.status, String(bad)).toBe(400);
      expect(res.body.error.details.fields.sleepAfterMinutes).toMatch(/1 to 10080/);
    }
    for (const notAnInteger of [1.5, "soon"]) {
      const res = await owner.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: notAnInteger } });
      expect(res.status, String(notAnInteger)).toBe(400);
      expect(res.body.error.details.fields.sleepAfterMinutes).toMatch(/Int/);
    }
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: 30, sleepWorkers: true } })).body).toMatchObject({ sleepAfterMinutes: 30, sleepWorkers: true });
    const gql = await owner.graphql(`mutation { updateApp(slug: "${slug}", input: { sleepAfterMinutes: null }) { ... on App { sleepAfterMinutes sleepWorkers } } }`);
    expect(gql.body.data.updateApp).toEqual({ sleepAfterMinutes: null, sleepWorkers: true });
  });

  it("never sleeps while it gets requests, sleeps once idle for its minutes, then holds the first requests while it starts once", async () => {
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: 1, sleepWorkers: false } })).status).toBe(200);
    const before = (await requestApp(server.url, `${slug}.localhost`)).body;
    // Requests every 40 s: never a minute idle.
    for (let i = 0; i < 3; i++) {
      await idleFor(40_000);
      expect((await requestApp(server.url, `${slug}.localhost`)).status).toBe(200);
    }
    expect((await app()).status).toBe("RUNNING");

    await putToSleep();
    // No web instance left (an orchestrator's task may take a moment to go).
    await waitFor(async () => (await app()).processes.find((p: { type: string }) => p.type === "web").instances.length === 0, 30_000, "no web instance");
    expect(await runtimeLines()).toContainEqual(expect.stringMatching(/^Sleeping: no request for 1 minute/));

    const answers = await Promise.all(Array.from({ length: 5 }, () => requestApp(server.url, `${slug}.localhost`, "/", { method: "POST", body: "held" })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    // One process answered them all, a new one.
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers[0].body).not.toBe(before);
    expect((await app()).status).toBe("RUNNING");
    const lines = await runtimeLines();
    expect(lines.filter((line) => line === "Waking: a request arrived.")).toHaveLength(1);
    expect(lines).toContainEqual(expect.stringMatching(/^Awake in \d+ ms\.$/));
  }, 60_000);

  it("wakes for a WebSocket upgrade, and an open WebSocket keeps it awake until it closes", async () => {
    await putToSleep();
    const { status, socket } = await upgrade();
    expect(status).toBe(101);
    socket!.write("ping");
    await new Promise((resolve) => socket!.once("data", resolve));
    await idleFor(5 * 60_000);
    expect((await app()).status).toBe("RUNNING");
    socket!.end();
    await new Promise((resolve) => socket!.once("close", resolve));
    await waitFor(async () => server.slipway.platform.activity.openSockets(slug) === 0, 5_000, "the router to see the socket closed");
    await putToSleep();
  }, 60_000);

  it("answers the crashed page, not a held request, when the start fails; with sleep turned off, a day without a request leaves it running", async () => {
    expect((await owner.post(`/api/apps/${slug}/env`, { FAIL_AT_START: "1" })).status).toBe(200);
    expect((await app()).status).toBe("SLEEPING");
    const answer = await requestApp(server.url, `${slug}.localhost`);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatch(/Crashed|Could not wake/);
    expect((await owner.request("DELETE", `/api/apps/${slug}/env?key=FAIL_AT_START`)).status).toBe(204);
    expect((await owner.post(`/api/apps/${slug}/restart`)).status).toBe(200);
    await waitFor(async () => (await requestApp(server.url, `${slug}.localhost`)).status === 200, 20_000, "the app to run again");
    // Off: idle for a day, it runs on.
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: null } })).status).toBe(200);
    await idleFor(24 * 60 * 60_000);
    expect((await app()).status).toBe("RUNNING");
    // On Swarm a start that fails is known once its health check gives up (START_TIMEOUT_SECONDS).
  }, 120_000);
});
