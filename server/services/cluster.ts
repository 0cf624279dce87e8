// The cluster as administrators see it (GET /api/admin/cluster, `npm run admin -- cluster`): the instances on this
// database that renewed their presence lately, which one holds the leader's lease and until when, and the work
// waiting in the deployments' queue.
import type { Db } from "../db/client.ts";
import { ENGINE_LEASE } from "../platform/cluster/index.ts";

/** Instances seen within this many lease terms are listed (a dead one shows, stale, for a while). */
const LISTED_TERMS = 3;

export interface ClusterView {
  /** The leader's instance id, or null: no instance holds a live lease (none runs cron or backups now). */
  leader: string | null;
  /** The leader's lease (null before any instance took it); renewedAt is its last renewal. */
  lease: { expiresAt: Date; renewedAt: Date } | null;
  instances: { id: string; address: string; runtime: string; leader: boolean; startedAt: Date; lastSeenAt: Date }[];
  queue: { pending: number; running: number };
}

export function createClusterService(deps: { db: Db; leaseMs: number; now: () => Date }) {
  const { db, leaseMs } = deps;
  return {
    async view(): Promise<ClusterView> {
      const now = deps.now();
      const [lease, rows, pending, running] = await Promise.all([
        db.clusterLease.findUnique({ where: { name: ENGINE_LEASE } }),
        db.clusterInstance.findMany({ where: { lastSeenAt: { gte: new Date(now.getTime() - LISTED_TERMS * leaseMs) } }, orderBy: { startedAt: "asc" } }),
        db.deployment.count({ where: { status: "QUEUED" } }),
        db.deployment.count({ where: { status: { in: ["BUILDING", "STARTING"] } } }),
      ]);
      const leader = lease && lease.expiresAt > now ? lease.holder.split("/")[0] : null;
      return {
        leader,
        lease: lease && { expiresAt: lease.expiresAt, renewedAt: new Date(lease.expiresAt.getTime() - leaseMs) },
        instances: rows.map((row) => ({ ...row, leader: row.id === leader })),
        queue: { pending, running },
      };
    },
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
