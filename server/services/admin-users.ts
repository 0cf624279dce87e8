// Administrators' work on accounts: find them, change role, status and quota, answer approvals. Suspension
// stops the account's running apps (reactivation leaves them stopped); its sessions, tokens and open
// subscriptions stop at once because every request and every subscription checks the account's status,
// read through the cache that this write clears on every instance. Every change is in the audit log.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { ConflictError, InvalidRequestError, NotFoundError } from "../errors.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import type { AccountService } from "./accounts.ts";
import type { AuditService } from "./audit.ts";
import type { Page } from "./pages.ts";
import { checkLimits, limitsForLog, quotaData, type QuotaLimits } from "./quota-limits.ts";
import type { Actor } from "./quota-requests.ts";
import { keepingAnAdmin, type Tx } from "./admin-left.ts";

export type Role = "USER" | "ADMIN";
export type UserStatus = "ACTIVE" | "PENDING" | "SUSPENDED";

export interface UserFilter {
  q?: string | null;
  status?: UserStatus | null;
  role?: Role | null;
}

export interface UserChanges {
  role?: Role | null;
  status?: UserStatus | null;
  quota?: QuotaLimits | null;
}

const Q_MAX = 200;

export function createAdminUserService(deps: { db: Db; engine: ClusterEngine; accounts: AccountService; audit: AuditService; defaultQuota: Config["defaultQuota"] }) {
  const { db, engine, accounts, audit, defaultQuota } = deps;

  async function find(id: string) {
    const user = typeof id === "string" ? await db.user.findUnique({ where: { id } }) : null;
    if (!user) throw new NotFoundError("There is no account with this id.");
    return user;
  }

  /** Cancels the user's deployments under way and stops every app of theirs that runs: a suspended account serves nothing. */
  async function stopApps(userId: string) {
    const underway = await db.deployment.findMany({ where: { app: { ownerId: userId }, status: { in: ["QUEUED", "BUILDING", "STARTING"] } }, select: { id: true, appId: true } });
    for (const d of underway) await engine.cancel(d.appId, d.id);
    const apps = await db.app.findMany({ where: { ownerId: userId, liveDeploymentId: { not: null }, status: { not: "STOPPED" } } });
    for (const app of apps) await engine.stop(app);
    return apps.map((a) => a.slug);
  }

  return {
    /** A page of accounts, newest first; q matches part of the email or the name. */
    list(filter: UserFilter, page: Page) {
      const q = typeof filter.q === "string" ? filter.q.trim().toLowerCase() : "";
      if (q.length > Q_MAX) throw new InvalidRequestError(`Search with at most ${Q_MAX} characters.`, { q: "Too long." });
      return db.user.findMany({
        where: {
          ...(filter.status ? { status: filter.status } : {}),
          ...(filter.role ? { role: filter.role } : {}),
          // Emails and handles are stored in lowercase, so a lowercase "contains" is case-insensitive on both databases.
          ...(q ? { OR: [{ email: { contains: q } }, { name: { contains: q } }] } : {}),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
      });
    },

    /** Pending accounts, oldest first (who waited longest). */
    pending: (page: Page) =>
      db.user.findMany({
        where: { status: "PENDING" },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: page.first,
        ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
      }),

    /** Changes role, status and/or quota together; each change is audited. */
    async update(actor: Actor, id: string, changes: UserChanges) {
      const user = await find(id);
      const fields: Record<string, string> = {};
      if (changes.role != null && !["USER", "ADMIN"].includes(changes.role)) fields.role = 'Use "USER" or "ADMIN".';
      if (changes.status != null && !["ACTIVE", "PENDING", "SUSPENDED"].includes(changes.status)) fields.status = 'Use "ACTIVE", "PENDING" or "SUSPENDED".';
      if (Object.keys(fields).length) throw new InvalidRequestError(`Check ${Object.keys(fields).join(", ")}.`, fields);
      const quota = changes.quota != null ? quotaData(checkLimits(changes.quota, "quota")) : null;
      if (changes.role == null && changes.status == null && !quota) {
        throw new InvalidRequestError("Give a role, a status or quota limits to change.", { role: "Nothing to change." });
      }
      const refusal =
        actor.id === id
          ? "You are the last administrator: make another account an administrator before you step down or suspend yourself."
          : "This is the last active administrator: make another account an administrator first.";
      const write = async (tx: Tx) => {
        const data = { ...(changes.role != null ? { role: changes.role } : {}), ...(changes.status != null ? { status: changes.status } : {}) };
        if (Object.keys(data).length) await tx.user.update({ where: { id }, data });
        if (quota) await tx.quota.upsert({ where: { userId: id }, update: quota, create: { ...defaultQuota, ...quota, userId: id } });
      };
      // Only a demotion or a status other than ACTIVE can cost the platform an administrator: limits, promotions
      // and activations skip the serializable check (which makes concurrent changes retry on PostgreSQL).
      const mayLoseAnAdmin = changes.role === "USER" || (changes.status != null && changes.status !== "ACTIVE");
      await (mayLoseAnAdmin ? keepingAnAdmin(db, refusal, write) : db.$transaction((tx) => write(tx as Tx)));
      const target = { type: "user", id };
      if (changes.role != null && changes.role !== user.role) {
        await audit.record({ actor, action: "admin.user.role", target, details: { from: user.role, to: changes.role, user: user.name }, ip: actor.ip });
      }
      if (changes.status != null && changes.status !== user.status) {
        const stopped = changes.status === "SUSPENDED" ? await stopApps(id) : [];
        const action = changes.status === "SUSPENDED" ? "admin.user.suspend" : changes.status === "ACTIVE" ? "admin.user.activate" : "admin.user.status";
        await audit.record({ actor, action, target, details: { from: user.status, to: changes.status, user: user.name, ...(stopped.length ? { stoppedApps: stopped } : {}) }, ip: actor.ip });
      }
      if (quota) await audit.record({ actor, action: "admin.user.quota", target, details: { user: user.name, limits: limitsForLog(quota) }, ip: actor.ip });
      // Awaited: every instance has cleared its cached copy of the account before the answer leaves, and the
      // account's open subscriptions re-check it now (a suspended one ends).
      await accounts.changed(id);
      return db.user.findUniqueOrThrow({ where: { id } });
    },

    /** Approves (ACTIVE) or rejects (SUSPENDED) an account waiting for approval. */
    async decideApproval(actor: Actor, id: string, decision: "approve" | "reject") {
      if (decision !== "approve" && decision !== "reject") {
        throw new InvalidRequestError('Decide with "approve" or "reject".', { decision: 'Use "approve" or "reject".' });
      }
      const user = await find(id);
      if (user.status !== "PENDING") throw new ConflictError(`This account is not waiting for approval (it is ${user.status.toLowerCase()}).`);
      const status = decision === "approve" ? "ACTIVE" : "SUSPENDED";
      const { count } = await db.user.updateMany({ where: { id, status: "PENDING" }, data: { status } });
      if (!count) throw new ConflictError("Another administrator decided this account meanwhile.");
      await audit.record({ actor, action: `admin.approval.${decision}`, target: { type: "user", id }, details: { user: user.name }, ip: actor.ip });
      await accounts.changed(id);
      return db.user.findUniqueOrThrow({ where: { id } });
    },
  };
}

export type AdminUserService = ReturnType<typeof createAdminUserService>;
