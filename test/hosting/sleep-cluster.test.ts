// Sleeping apps across two instances (one PostgreSQL database, one Redis, a 3 s lease; the first leads and runs the
// sleep timer, on a clock the test moves): a sleep setting sent through the follower reaches the leader; once the
// app sleeps the follower's routing table says so, and a request through the follower's router is held while it
// asks the leader to wake the app, then answered by the freshly started process.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, requestApp, waitFor, zipFolder } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { createPostgresDatabase, REDIS_URL, startServer, type TestServer } from "../helpers/server.ts";
import { idleMinutes } from "../helpers/sleep.ts";

const clock = new FakeClock(Date.parse("2031-01-01T00:00:00Z"));
const slug = `sleepy-cluster-${process.pid}`;
let leader: TestServer;
let follower: TestServer;
let owner: Client;
let drop: () => Promise<void>;

const APP = {
  "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
  "server.js": `const started = Math.random(); require("http").createServer((q, s) => s.end("awake " + started)).listen(process.env.PORT);`,
};

beforeAll(async () => {
  const database = await createPostgresDatabase();
  drop = database.drop;
  const env = { REDIS_URL, REDIS_KEY_PREFIX: `slipway-sleep-${process.pid}-${Date.now()}:`, DATABASE_URL: database.url, CLUSTER_LEASE_SECONDS: "3", DEFAULT_REQUESTS_PER_MINUTE: "100000" };
  leader = await startServer(env, { clock });
  follower = await startServer(env);
  expect(leader.slipway.platform.cluster?.leading).toBe(true);
  owner = new Client(leader.url);
  await owner.signup();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  expect((await deploy(owner, slug, await zipFolder(null, APP))).status).toBe("LIVE");
}, 120_000);
afterAll(async () => {
  await follower?.close();
  await leader?.close();
  await drop?.();
});

describe("a sleeping app on two instances", () => {
  it("is woken by a request through the follower, which the leader starts", async () => {
    const viaFollower = new Client(follower.url);
    viaFollower.cookie = owner.cookie;
    expect((await viaFollower.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: 1 } })).status).toBe(200);
    const before = await waitFor(async () => {
      const answer = await requestApp(follower.url, `${slug}.localhost`);
      return answer.status === 200 && answer.body;
    }, 10_000, "the follower to route the app");

    const { sleeps } = leader.slipway.platform;
    await idleMinutes(clock, sleeps, 1);
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("SLEEPING");
    await waitFor(async () => follower.slipway.platform.engine.routes.lookup(slug).kind === "sleeping", 10_000, "the follower's copy to say sleeping");

    const answers = await Promise.all([requestApp(follower.url, `${slug}.localhost`), requestApp(follower.url, `${slug}.localhost`)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers[0].body).toMatch(/^awake /);
    expect(answers[0].body).not.toBe(before);
    expect(answers[1].body).toBe(answers[0].body);
    expect((await viaFollower.get(`/api/apps/${slug}`)).body.status).toBe("RUNNING");
    const lines = (await owner.get(`/api/apps/${slug}/logs?kind=runtime&limit=200`)).body.map((l: { line: string }) => l.line);
    expect(lines.filter((line: string) => line === "Waking: a request arrived.")).toHaveLength(1);
  }, 60_000);
});
