// Platform-wide numbers for administrators: the contract's GET /api/admin/stats body, plus the series the
// dashboard charts (deployments per day with failures, the largest users of storage). Counts and sums only:
// nothing here returns rows.
import type { Db } from "../db/client.ts";

export const APP_STATUSES = ["CREATED", "DEPLOYING", "RUNNING", "CRASHED", "STOPPED", "FAILED", "SLEEPING"] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

export function createAdminStatsService(db: Db) {
  return {
    async overview() {
      const now = new Date();
      const dayAgo = new Date(now.getTime() - DAY_MS);
      const [users, apps, deployments, last24h, failedLast24h, databases, cdn, clients, activeTokens, pendingRequests] = await Promise.all([
        db.user.groupBy({ by: ["status"], _count: { _all: true } }),
        db.app.groupBy({ by: ["status"], _count: { _all: true } }),
        db.deployment.count(),
        db.deployment.count({ where: { createdAt: { gte: dayAgo } } }),
        db.deployment.count({ where: { createdAt: { gte: dayAgo }, status: "FAILED" } }),
        db.resource.count(),
        db.file.aggregate({ _count: { _all: true }, _sum: { size: true } }),
        db.oAuthClient.count(),
        db.oAuthToken.count({ where: { revokedAt: null, accessTokenExpiresAt: { gt: now } } }),
        db.quotaRequest.count({ where: { status: "PENDING" } }),
      ]);
      const byUserStatus = (s: string) => users.find((u) => u.status === s)?._count._all ?? 0;
      const byStatus = Object.fromEntries(APP_STATUSES.map((s) => [s, apps.find((a) => a.status === s)?._count._all ?? 0])) as Record<(typeof APP_STATUSES)[number], number>;
      return {
        users: {
          total: users.reduce((n, u) => n + u._count._all, 0),
          active: byUserStatus("ACTIVE"),
          pending: byUserStatus("PENDING"),
          suspended: byUserStatus("SUSPENDED"),
        },
        apps: { total: apps.reduce((n, a) => n + a._count._all, 0), byStatus },
        deployments: { total: deployments, last24h, failedLast24h },
        databases,
        cdn: { files: cdn._count._all, bytes: cdn._sum.size ?? 0n },
        oauth: { clients, activeTokens },
        quotaRequests: { pending: pendingRequests },
      };
    },

    /** Deployments started on each of the last `days` UTC days (oldest first), with how many failed. */
    async deploymentsByDay(days: number) {
      const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
      const starts = Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS));
      return Promise.all(
        starts.map(async (day) => {
          const createdAt = { gte: day, lt: new Date(day.getTime() + DAY_MS) };
          const [total, failed] = await Promise.all([db.deployment.count({ where: { createdAt } }), db.deployment.count({ where: { createdAt, status: "FAILED" } })]);
          return { day, total, failed };
        }),
      );
    },

    /** The accounts using the most CDN storage, largest first. */
    async topStorage(first: number) {
      const rows = await db.file.groupBy({ by: ["ownerId"], _sum: { size: true }, orderBy: { _sum: { size: "desc" } }, take: first });
      const users = await db.user.findMany({ where: { id: { in: rows.map((r) => r.ownerId) } }, select: { id: true, name: true } });
      return rows.map((r) => ({ userId: r.ownerId, name: users.find((u) => u.id === r.ownerId)?.name ?? r.ownerId, bytes: r._sum.size ?? 0n }));
    },
  };
}

export type AdminStatsService = ReturnType<typeof createAdminStatsService>;
