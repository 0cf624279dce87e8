// Two instances on one PostgreSQL database and one Redis, with a 3 s lease: the first leads (it runs cron and the
// scheduled backups), GET /api/admin/cluster on either says so to administrators only; once the leader shuts
// down the other takes over within a lease renewal, and `npm run admin -- cluster` shows it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdminScript } from "../helpers/admin-script.ts";
import { waitFor } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { createPostgresDatabase, REDIS_URL, startServer, type TestServer } from "../helpers/server.ts";
import { admin, signedUp } from "./helpers.ts";

let a: TestServer;
let b: TestServer;
let drop: () => Promise<void>;
let boss: Client;

interface ClusterBody {
  leader: string | null;
  lease: { expiresAt: string; renewedAt: string } | null;
  instances: { id: string; address: string; runtime: string; leader: boolean; startedAt: string; lastSeenAt: string }[];
  queue: { pending: number; running: number };
}

beforeAll(async () => {
  const database = await createPostgresDatabase();
  drop = database.drop;
  const env = { REDIS_URL, REDIS_KEY_PREFIX: `slipway-test-${process.pid}-${Date.now()}:`, DATABASE_URL: database.url, CLUSTER_LEASE_SECONDS: "3" };
  a = await startServer(env);
  b = await startServer(env);
  const account = await admin(a);
  boss = new Client(b.url);
  boss.cookie = account.client.cookie;
}, 60_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await drop?.();
});

const cluster = async () => (await boss.get("/api/admin/cluster")).body as ClusterBody;

describe("a cluster of two instances", () => {
  it("has one leader, the first, and lists both to administrators only", async () => {
    const view = await cluster();
    expect(view.instances).toHaveLength(2);
    const [first, second] = view.instances;
    expect(view.leader).toBe(first.id);
    expect([first.leader, second.leader]).toEqual([true, false]);
    expect(first.address).toMatch(new RegExp(`:${new URL(a.url).port}$`));
    expect(second.address).toMatch(new RegExp(`:${new URL(b.url).port}$`));
    expect(Date.parse(view.lease!.expiresAt)).toBeGreaterThan(Date.now());
    expect(view.queue).toEqual({ pending: 0, running: 0 });
    expect(a.slipway.platform.cluster?.leading).toBe(true);
    expect(b.slipway.platform.cluster?.leading).toBe(false);
    const user = await signedUp(b);
    expect((await user.client.get("/api/admin/cluster")).status).toBe(403);
  });

  it("moves the lead to the other instance once the leader shuts down", async () => {
    const leaderId = (await cluster()).leader;
    await a.close();
    const after = await waitFor(async () => {
      const view = await cluster();
      return view.leader !== null && view.leader !== leaderId ? view : null;
    }, 5000, "the other instance to lead");
    expect(after.instances.map((i) => i.leader)).toEqual([true]);
    expect(b.slipway.platform.cluster?.leading).toBe(true);

    const script = await runAdminScript({ DATABASE_URL: b.config.databaseUrl, DATA_DIR: b.config.dataDir, CLUSTER_LEASE_SECONDS: "3" }, "cluster");
    expect(script.code).toBe(0);
    expect(script.stdout).toContain(`Leader: ${after.leader}`);
    expect(script.stdout).toMatch(new RegExp(`\\* ${after.leader}  \\S+:${new URL(b.url).port}  local`));
  }, 120_000);
});
