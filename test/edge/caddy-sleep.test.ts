// A sleeping app behind Caddy (EDGE=caddy): once it sleeps when idle, Caddy sends its requests through Slipway's
// router (which counts them, and holds a request while the app wakes) instead of straight to its instances; a
// request through Caddy to the sleeping app is answered by a freshly started process. The sleep timer runs on the
// injected clock.
import https from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, zipFolder } from "../helpers/apps.ts";
import { HAS_CADDY, httpsGet, startCaddy, type TestCaddy } from "../helpers/caddy.ts";
import { Client } from "../helpers/client.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { adminRequest } from "../../server/platform/edge/caddy.ts";
import { idleMinutes } from "../helpers/sleep.ts";

if (!HAS_CADDY) console.warn("test/edge/caddy-sleep.test.ts: skipped: `caddy` is not installed (apt-get install caddy)");

const APP = {
  "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
  "server.js": `const started = Math.random(); require("http").createServer((q, s) => s.end("awake " + started)).listen(process.env.PORT);`,
};

describe.skipIf(!HAS_CADDY)("a sleeping app behind Caddy", () => {
  const clock = new FakeClock(Date.parse("2031-01-01T00:00:00Z"));
  const slug = `edge-sleepy-${process.pid}`;
  let caddy: TestCaddy;
  let server: TestServer;
  let owner: Client;
  let ca: string;
  const url = () => `https://${slug}.localhost:${caddy.ports.https}/`;

  /** The upstreams Caddy's route for the app's host dials. */
  async function appRouteDials(): Promise<string[]> {
    const routes = JSON.parse((await adminRequest(caddy.admin, "GET", "/config/apps/http/servers/slipway/routes")).body) as { match?: { host?: string[] }[]; handle: { upstreams?: { dial: string }[]; dynamic_upstreams?: unknown }[] }[];
    const route = routes.find((r) => r.match?.[0]?.host?.includes(`${slug}.localhost`));
    const handler = route!.handle.at(-1)!;
    return handler.dynamic_upstreams ? ["by DNS"] : handler.upstreams!.map((u) => u.dial);
  }

  beforeAll(async () => {
    caddy = await startCaddy();
    server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", ...caddy.env }, { clock });
    owner = new Client(server.url);
    await owner.signup();
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    expect((await deploy(owner, slug, await zipFolder(null, APP))).status).toBe("LIVE");
    ca = await caddy.ca();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await caddy?.stop();
  });

  it("sends the app through Slipway once it may sleep, and a request through Caddy wakes it", async () => {
    expect(await appRouteDials()).toEqual(["by DNS"]);
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: 1 } })).status).toBe(200);
    const slipway = `127.0.0.1:${new URL(server.url).port}`;
    expect(await appRouteDials()).toEqual([slipway]);
    const before = await httpsGet(url(), ca, new https.Agent());
    expect(before.status).toBe(200);

    const { sleeps } = server.slipway.platform;
    await idleMinutes(clock, sleeps, 1);
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("SLEEPING");

    const woken = await httpsGet(url(), ca, new https.Agent());
    expect(woken.status).toBe(200);
    expect(woken.body).toMatch(/^awake /);
    expect(woken.body).not.toBe(before.body);
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("RUNNING");
    // Sleep off: straight to the instances again.
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: null } })).status).toBe(200);
    expect(await appRouteDials()).toEqual(["by DNS"]);
  }, 60_000);
});
