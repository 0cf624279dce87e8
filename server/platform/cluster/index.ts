// Several Slipway instances on one database: which one this is, and the lease that makes one of them the leader.
// The leader runs what must run once per cluster: the cron scheduler and scheduled database backups (both also
// claim each run in the database or Redis, so a leadership change never runs one twice). The local runtime runs
// apps on its own machine: instances on other machines with it would split the apps, so that topology is refused.
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { Db } from "../../db/client.ts";
import { systemClock, type Clock } from "../../hosting/clock.ts";
import { ClusterLease } from "./lease.ts";

export { ClusterLease, ENGINE_LEASE } from "./lease.ts";

/** Stable per machine and DATA_DIR: the same instance restarted is the same instance. */
export function clusterInstanceId(dataDir: string): string {
  return createHash("sha256").update(`${os.hostname()}\0${path.resolve(dataDir)}`).digest("hex").slice(0, 12);
}

export interface ClusterDeps {
  db: Db;
  dataDir: string;
  runtime: string;
  leaseMs: number;
  /** What the leader runs, started when this instance leads and stopped when it no longer does. */
  leaderWork: LeaderWork;
  onError(error: unknown, message: string): void;
  clock?: Clock;
}

export class ClusterTopologyError extends Error {}

/**
 * Throws when this instance may not run beside the others seen within a lease term: one on another machine while
 * either runs apps with the local runtime (each would run its apps on its own machine, out of the other's reach),
 * or any other one without Redis (followers reach the leader and its routing table through it).
 */
export async function refuseUnsupportedTopology(db: Db, self: { dataDir: string; runtime: string; leaseMs: number; redis: boolean }, now = Date.now()): Promise<void> {
  const others = await db.clusterInstance.findMany({ where: { id: { not: clusterInstanceId(self.dataDir) }, lastSeenAt: { gte: new Date(now - self.leaseMs) } } });
  const here = os.hostname();
  const split = others.find((other) => hostOf(other.address) !== here && (self.runtime === "local" || other.runtime === "local"));
  if (split) {
    throw new ClusterTopologyError(
      `Another Slipway instance uses this database from another machine (${split.address}, RUNTIME=${split.runtime}), and RUNTIME=local runs each instance's apps on its own machine: apps would be split between them. Run several instances with RUNTIME=docker (one Docker engine every instance reaches) or RUNTIME=swarm, or stop the other instance.`,
    );
  }
  if (others.length && !self.redis) {
    throw new ClusterTopologyError(
      `Another Slipway instance uses this database (${others[0].address}), and REDIS_URL is not set: instances reach the leader and share its routing table through Redis. Set REDIS_URL on every instance (the same Redis), or stop the other instance.`,
    );
  }
}

/** How an instance names itself in the cluster's list: this machine, and the port it listens on. */
export const instanceAddress = (port: number) => `${os.hostname()}:${port}`;

const hostOf = (address: string) => address.slice(0, address.lastIndexOf(":"));

/** The lease of this instance, reachable at `port` on this machine; start() once the server listens. */
export function createClusterLease(deps: ClusterDeps, port: number): ClusterLease {
  return new ClusterLease({
    db: deps.db,
    clock: deps.clock ?? systemClock,
    instance: { id: clusterInstanceId(deps.dataDir), address: instanceAddress(port), runtime: deps.runtime },
    ttlMs: deps.leaseMs,
    onChange: (leading) => (leading ? deps.leaderWork.lead() : deps.leaderWork.follow()),
    onError: deps.onError,
  });
}

export interface LeaderPart {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/** What the leader runs (the engine first, then cron and backups), started and stopped in order, one change at a time. */
export class LeaderWork {
  private latest: Promise<void> = Promise.resolve();
  /** Why the latest change failed (a boot that threw), for settled(). */
  private failure: unknown = null;
  /** The parts running now: a start tried again after a failure starts only the others. */
  private readonly running = new Set<LeaderPart>();

  constructor(
    private readonly parts: LeaderPart[],
    private readonly onError: (error: unknown, message: string) => void,
    /** Called after a failed start (a boot that threw at a failover): `again` tries the parts not running yet. */
    private readonly afterFailedStart: (again: () => void) => void = () => {},
  ) {}

  lead(): void {
    this.then(async () => {
      for (const part of this.parts) {
        if (this.running.has(part)) continue;
        await part.start();
        this.running.add(part);
      }
    }, "starting the leader's work").then(() => {
      if (this.failure) this.afterFailedStart(() => this.lead());
    });
  }

  follow(): void {
    this.then(async () => {
      const running = this.parts.filter((part) => this.running.has(part));
      this.running.clear();
      await Promise.all(running.map((part) => part.stop()));
    }, "stopping the leader's work");
  }

  /** Resolves once the latest change (leading or following) is done; rejects when it failed (a boot that threw). */
  async settled(): Promise<void> {
    await this.latest;
    if (this.failure) throw this.failure;
  }

  private then(step: () => Promise<void>, what: string): Promise<void> {
    this.latest = this.latest.then(async () => {
      this.failure = null;
      try {
        await step();
      } catch (error) {
        this.failure = error;
        this.onError(error, what);
      }
    });
    return this.latest;
  }
}
