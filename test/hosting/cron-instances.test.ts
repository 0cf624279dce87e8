// Two platform instances on one PostgreSQL database and one Redis, both ticking the same minutes of a cron job every
// minute: each minute runs exactly once (the CronTick claim), whichever instance claims it first.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, waitFor, zipFolder } from "../helpers/apps.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { createPostgresDatabase, REDIS_URL, startServer, type TestServer } from "../helpers/server.ts";

let a: TestServer;
let b: TestServer;
let drop: () => Promise<void>;
let owner: Client;
const slug = `cron-two-${process.pid}`;
// Clocks that stay put: only the test's ticks run the job.
const FINISHED = new Set(["SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELED"]);
const clock = () => new FakeClock(Date.parse("2031-01-01T00:00:30Z"));

beforeAll(async () => {
  const database = await createPostgresDatabase();
  drop = database.drop;
  const env = { REDIS_URL, REDIS_KEY_PREFIX: `slipway-test-${process.pid}-${Date.now()}:`, DATABASE_URL: database.url, DEFAULT_REQUESTS_PER_MINUTE: "100000" };
  a = await startServer(env, { clock: clock() });
  b = await startServer(env, { clock: clock() });
  owner = new Client(a.url);
  await owner.signup();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  const app = {
    "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
    "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`,
    "app.json": JSON.stringify({ cron: [{ command: "echo tick", schedule: "* * * * *" }] }),
  };
  expect((await deploy(owner, slug, await zipFolder(null, app))).status).toBe("LIVE");
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await drop?.();
});

describe("cron on two platform instances", () => {
  it("runs each minute once", async () => {
    const minutes = ["2031-01-01T00:01:00Z", "2031-01-01T00:02:00Z", "2031-01-01T00:03:00Z"];
    for (const [i, minute] of minutes.entries()) {
      await Promise.all([a.slipway.platform.cron.tick(new Date(minute)), b.slipway.platform.cron.tick(new Date(minute))]);
      const runs = await waitFor(async () => {
        const list = (await owner.get(`/api/apps/${slug}/runs`)).body as { status: string; trigger: string; error: string | null }[];
        return list.length >= i + 1 && list.every((r) => FINISHED.has(r.status)) && list;
      }, 20_000, `run ${i + 1} to finish`);
      expect(runs.map((r) => [r.trigger, r.status, r.error])).toEqual(Array(i + 1).fill(["cron", "SUCCEEDED", null]));
    }
    expect(await a.slipway.platform.db.cronTick.count()).toBe(3);
    expect((await owner.get(`/api/apps/${slug}/runs`)).body).toHaveLength(3);
  });
});
