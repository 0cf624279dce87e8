// Several Slipway instances on one database: which one this is, and the lease that makes one of them the leader.
// The leader runs what must run once per cluster: the cron scheduler and scheduled database backups (both also
// claim each run in the database or Redis, so a leadership change never runs one twice).
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
  leaderWork: { start(): void; stop(): Promise<void> }[];
  onError(error: unknown, message: string): void;
  clock?: Clock;
}

/** The lease of this instance, reachable at `port` on this machine; start() once the server listens. */
export function createClusterLease(deps: ClusterDeps, port: number): ClusterLease {
  const work = deps.leaderWork;
  return new ClusterLease({
    db: deps.db,
    clock: deps.clock ?? systemClock,
    instance: { id: clusterInstanceId(deps.dataDir), address: `${os.hostname()}:${port}`, runtime: deps.runtime },
    ttlMs: deps.leaseMs,
    onChange: (leading) => {
      if (leading) for (const w of work) w.start();
      else for (const w of work) void w.stop().catch((error: unknown) => deps.onError(error, "stopping the leader's work"));
    },
    onError: deps.onError,
  });
}
