// The leader's lease on a real PostgreSQL database, each instance on a clock of its own (a frozen clock is an
// instance that died: it never renews): one instance leads; another takes over only once the dead one's lease ran
// out; a leader cut off from the database (its connection blocked, its queries hanging) steps down a third of a
// term before its lease runs out, so two never lead at once; the cluster view says who leads.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../../server/db/client.ts";
import { migrate } from "../../server/db/migrate.ts";
import { ClusterLease } from "../../server/platform/cluster/index.ts";
import { createClusterService } from "../../server/services/cluster.ts";
import { waitFor } from "../helpers/apps.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { createPostgresDatabase } from "../helpers/server.ts";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.ts";

const TTL = 9000;
const T0 = Date.parse("2031-01-01T00:00:00Z");
let url: string;
let drop: () => Promise<void>;
let db: Db;
let proxy: TcpProxy;
let cutOff: Db;
const leases: ClusterLease[] = [];

beforeAll(async () => {
  ({ url, drop } = await createPostgresDatabase());
  await migrate(url);
  db = createDb(url);
  proxy = await startTcpProxy({ host: "127.0.0.1", port: Number(new URL(url).port || 5432) });
  const through = new URL(url);
  through.port = String(proxy.port);
  cutOff = createDb(through.toString());
}, 60_000);
afterAll(async () => {
  // The blocked connections first: a lease closing through them would wait forever.
  await proxy?.close();
  for (const lease of leases) await lease.close().catch(() => {});
  await Promise.all([db?.$disconnect(), cutOff?.$disconnect().catch(() => {})]);
  await drop?.();
});

function instance(id: string, clock: FakeClock, database: Db = db) {
  const changes: boolean[] = [];
  const lease = new ClusterLease({ db: database, clock, instance: { id, address: `${id}:3000`, runtime: "docker" }, ttlMs: TTL, onChange: (leading) => changes.push(leading), onError: () => {} });
  leases.push(lease);
  return { lease, changes, clock };
}

/** Moves an instance's clock to `time`, a renewal's; resolves once `until` holds and the next renewal is set. */
async function at(node: { clock: FakeClock }, time: number, until: () => Promise<boolean> | boolean = () => true) {
  await node.clock.advanceTo(time);
  await waitFor(async () => ((await until()) && node.clock.hasTimerAt(time + TTL / 3)) || null, 10_000, `the renewal at +${time - T0} ms`);
}

const holder = async () => (await db.clusterLease.findUnique({ where: { name: "engine" } }))?.holder.split("/")[0] ?? null;
const seen = async (id: string) => (await db.clusterInstance.findUnique({ where: { id } }))?.lastSeenAt.getTime();

describe("the leader's lease", () => {
  it("elects one instance, moves to another only once the dead one's lease ran out, and a cut-off leader steps down first", async () => {
    const a = instance("aaaa", new FakeClock(T0));
    const b = instance("bbbb", new FakeClock(T0), cutOff);
    await a.lease.start();
    await b.lease.start();
    expect([a.lease.leading, b.lease.leading, await holder()]).toEqual([true, false, "aaaa"]);
    const view = await createClusterService({ db, leaseMs: TTL, now: () => new Date(T0 + 1000) }).view();
    expect(view.leader).toBe("aaaa");
    expect(view.instances.map((i) => [i.id, i.leader])).toEqual([["aaaa", true], ["bbbb", false]]);

    // a dies (its clock stops): b does not take over while a's lease lasts, and does once it ran out.
    for (const round of [3000, 6000, 9000]) await at(b, T0 + round, async () => (await seen("bbbb")) === T0 + round);
    expect(b.lease.leading).toBe(false);
    // b still knows of a leader: a's lease was live at its last round.
    expect(b.lease.someoneLeads).toBe(true);
    await at(b, T0 + 12_000, () => b.lease.leading);
    expect([b.changes, await holder()]).toEqual([[true], "bbbb"]);

    // b loses the database: its renewal hangs, and it steps down two thirds of a term after its last renewal.
    proxy.block();
    await b.clock.advanceTo(T0 + 15_000);
    expect(b.lease.leading).toBe(true);
    await b.clock.advanceTo(T0 + 18_000);
    expect(b.lease.leading).toBe(false);
    expect(b.changes).toEqual([true, false]);
    // Nor does it know of another leader (it cannot read the lease): its apps' statuses say so.
    expect(b.lease.someoneLeads).toBe(false);
    // Only after that does its lease run out for the others: c takes over at the first round past it.
    const c = instance("cccc", new FakeClock(T0 + 20_000));
    await c.lease.start();
    expect(c.lease.leading).toBe(false);
    await at(c, T0 + 23_000, () => c.lease.leading);
    expect(await holder()).toBe("cccc");
  });

  it("hands the lease over at once when its holder shuts down", async () => {
    const d = instance("dddd", new FakeClock(Date.now() + 60_000));
    const e = instance("eeee", new FakeClock(Date.now() + 60_000));
    await db.clusterLease.deleteMany({});
    await d.lease.start();
    await e.lease.start();
    expect([d.lease.leading, e.lease.leading]).toEqual([true, false]);
    await d.lease.close();
    expect(d.changes).toEqual([true, false]);
    expect(await db.clusterInstance.findUnique({ where: { id: "dddd" } })).toBeNull();
    await e.lease.renew();
    expect(e.lease.leading).toBe(true);
  });
});
