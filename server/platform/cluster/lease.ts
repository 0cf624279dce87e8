// Leader election through the database every instance shares: one row per lease, taken by an instance when it is
// free or expired, renewed by its holder every third of its term. A holder that cannot renew (it lost the
// database, a query hangs) steps down a third of a term before its lease runs out, on a timer of its own, so two
// instances never both lead while their clocks agree within that third. Each renewal also marks the instance as seen
// (ClusterInstance), which is how GET /api/admin/cluster lists the instances.
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../hosting/clock.ts";

export interface InstanceInfo {
  /** Stable per machine and DATA_DIR (clusterInstanceId). */
  id: string;
  address: string;
  runtime: string;
}

/** Where an edge in front (EDGE=caddy) reaches an instance, and its DNS source of app instances. */
export interface EdgeAddresses {
  upstream: string;
  resolver: string;
}

export interface LeaseDeps {
  db: Db;
  clock: Clock;
  instance: InstanceInfo;
  ttlMs: number;
  /** The instance became the leader (true) or stopped being it (false). */
  onChange(leading: boolean): void;
  onError(error: unknown, message: string): void;
}

export const ENGINE_LEASE = "engine";

export class ClusterLease {
  /** This boot's holder name (the instance's id, then when it started). */
  private readonly holder: string;
  private readonly startedAt: Date;
  private renewTimer: unknown = null;
  /** Fires when this instance's hold runs out unrenewed (a lost database, a stall): it steps down. */
  private stepDownTimer: unknown = null;
  private closed = false;
  private address: string;
  /** When a round last found another instance holding a live lease (it leads until then plus a term at most). */
  private otherLeaderSeenAt: number | null = null;
  /** Whether the last round that reached the database saw another instance alive (within a term). */
  private companions = false;
  /** This instance's addresses for the edge, once it serves one. */
  private edge: EdgeAddresses | null = null;
  /** The other live instances (seen within a term), sorted, as of the last round. */
  private others: { id: string; edge: EdgeAddresses | null }[] = [];
  private readonly othersChanged: Array<() => void> = [];

  constructor(private readonly deps: LeaseDeps) {
    this.address = deps.instance.address;
    this.startedAt = new Date(deps.clock.now());
    this.holder = `${deps.instance.id}/${this.startedAt.getTime().toString(36)}`;
  }

  get leading(): boolean {
    return this.stepDownTimer !== null;
  }

  /** Whether another instance was alive at the last round that reached the database: it would take over from this one. */
  get hadCompanions(): boolean {
    return this.companions;
  }

  /** Whether some instance leads, as far as this one knows (from its last round, a third of a term ago at most). */
  get someoneLeads(): boolean {
    if (this.leading) return true;
    return this.otherLeaderSeenAt !== null && this.deps.clock.now() - this.otherLeaderSeenAt < this.deps.ttlMs;
  }

  /** Where this instance listens, once known (PORT=0 picks it at listen): shown from the next round on. */
  listensAt(address: string): void {
    this.address = address;
  }

  /** This instance serves the edge at `addresses` (shown to the others from the next round). */
  servesEdge(addresses: EdgeAddresses): void {
    this.edge = addresses;
  }

  /** The other live instances' ids, as of the last round. */
  get otherInstances(): readonly string[] {
    return this.others.map((other) => other.id);
  }

  /** The other live instances' edge addresses (sorted; an edge in front lists every instance alike). */
  get edgePeers(): readonly EdgeAddresses[] {
    return this.others.flatMap((other) => (other.edge ? [other.edge] : []));
  }

  /** Called when a round finds another set of live instances (one joined, left, or its lease term ran out). */
  onOthersChange(listener: () => void): void {
    this.othersChanged.push(listener);
  }

  /** Tries at once (resolves after the first try), then every third of the term. */
  start(): Promise<void> {
    return this.renew();
  }

  /** One round: be seen, then take or renew the lease (or learn that another instance holds it). */
  async renew(): Promise<void> {
    if (this.closed) return;
    const now = this.deps.clock.now();
    try {
      await this.seen(now);
      const holds = await this.take(now);
      // Closed meanwhile: close() gave the lease up already.
      if (this.closed) return;
      // Not taken: another instance holds a live one (take() takes a free or run-out lease).
      this.otherLeaderSeenAt = holds ? null : now;
      if (holds) this.held();
      else this.stepDown();
    } catch (error) {
      // Unknown whether it still holds: it leads on until its hold runs out (stepDownTimer).
      this.deps.onError(error, "renewing the cluster lease failed");
    } finally {
      if (!this.closed) this.renewTimer = this.deps.clock.setTimeout(() => void this.renew(), this.deps.ttlMs / 3);
    }
  }

  /** Stops renewing; a held lease is given up at once (another instance leads from its next round). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.renewTimer !== null) this.deps.clock.clearTimeout(this.renewTimer);
    const { db, instance } = this.deps;
    if (this.leading) await db.clusterLease.updateMany({ where: { name: ENGINE_LEASE, holder: this.holder }, data: { expiresAt: new Date(0) } }).catch(() => {});
    await db.clusterInstance.deleteMany({ where: { id: instance.id } }).catch(() => {});
    this.stepDown();
  }

  /** Whether this instance holds the lease now: renewed, or taken because it was free or expired. */
  private async take(now: number): Promise<boolean> {
    const { db, ttlMs } = this.deps;
    const expiresAt = new Date(now + ttlMs);
    const taken = await db.clusterLease.updateMany({ where: { name: ENGINE_LEASE, OR: [{ holder: this.holder }, { expiresAt: { lt: new Date(now) } }] }, data: { holder: this.holder, expiresAt } });
    if (taken.count === 1) return true;
    const lease = await db.clusterLease.findUnique({ where: { name: ENGINE_LEASE }, select: { holder: true } });
    // An earlier boot of this same instance (its id is per machine and DATA_DIR) holds nothing any more: taken at
    // once. Only an earlier one: two processes on one DATA_DIR must not take it from each other in turn.
    if (lease && this.earlierBoot(lease.holder)) {
      const again = await db.clusterLease.updateMany({ where: { name: ENGINE_LEASE, holder: lease.holder }, data: { holder: this.holder, expiresAt } });
      return again.count === 1;
    }
    // No lease yet: the first to create it leads; the others lose on its primary key.
    if (lease) return false;
    return db.clusterLease.create({ data: { name: ENGINE_LEASE, holder: this.holder, expiresAt } }).then(
      () => true,
      () => false,
    );
  }

  private earlierBoot(holder: string): boolean {
    const [id, started] = holder.split("/");
    return id === this.deps.instance.id && parseInt(started, 36) < this.startedAt.getTime();
  }

  private async seen(now: number): Promise<void> {
    const { instance, db, ttlMs } = this.deps;
    const row = { address: this.address, runtime: instance.runtime, startedAt: this.startedAt, lastSeenAt: new Date(now), edgeUpstream: this.edge?.upstream ?? null, edgeResolver: this.edge?.resolver ?? null };
    await db.clusterInstance.upsert({ where: { id: instance.id }, create: { id: instance.id, ...row }, update: row });
    const rows = await db.clusterInstance.findMany({
      where: { id: { not: instance.id }, lastSeenAt: { gte: new Date(now - ttlMs) } },
      select: { id: true, edgeUpstream: true, edgeResolver: true },
      orderBy: [{ edgeUpstream: "asc" }, { id: "asc" }],
    });
    this.companions = rows.length > 0;
    const others = rows.map((row) => ({ id: row.id, edge: row.edgeUpstream && row.edgeResolver ? { upstream: row.edgeUpstream, resolver: row.edgeResolver } : null }));
    if (JSON.stringify(others) === JSON.stringify(this.others)) return;
    this.others = others;
    for (const listener of this.othersChanged) listener();
  }

  /** Renewed: the hold lasts two thirds of a term from now, a third before the lease itself runs out. */
  private held(): void {
    const was = this.leading;
    if (this.stepDownTimer !== null) this.deps.clock.clearTimeout(this.stepDownTimer);
    this.stepDownTimer = this.deps.clock.setTimeout(() => this.stepDown(), (this.deps.ttlMs * 2) / 3);
    if (!was) this.deps.onChange(true);
  }

  private stepDown(): void {
    if (this.stepDownTimer === null) return;
    this.deps.clock.clearTimeout(this.stepDownTimer);
    this.stepDownTimer = null;
    this.deps.onChange(false);
  }
}
