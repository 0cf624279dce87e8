// The admin console (REST: /api/admin/*): platform stats, accounts (search, role, status, quota), approvals
// and limit requests. Every field needs the `admin` scope (role ADMIN); others get forbidden. The services
// record each action in the audit log (audit.ts reads it).
import { ConflictError, InvalidRequestError, NotFoundError } from "../../errors.ts";
import { APP_STATUSES, type AdminStatsService } from "../../services/admin-stats.ts";
import type { ClusterView } from "../../services/cluster.ts";
import type { Actor } from "../../services/quota-requests.ts";
import { builder } from "../builder.ts";
import type { ViewerContext } from "../context.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";
import { Sandbox } from "./apps.ts";
import { QuotaLimitsInput, QuotaRequestStatusEnum } from "./quota-requests.ts";
import { RoleEnum, UserStatusEnum } from "./user.ts";

const ADMIN = { admin: true } as const;

export const actorOf = (ctx: ViewerContext): Actor => ({ id: ctx.viewer.user.id, name: ctx.viewer.user.name, ip: ctx.client.ip });

type Overview = Awaited<ReturnType<AdminStatsService["overview"]>>;
const counts = <T extends object>(name: string, keys: (keyof T & string)[]) =>
  builder.objectRef<T>(name).implement({ fields: (t) => Object.fromEntries(keys.map((k) => [k, t.int({ resolve: (o) => (o as Record<string, number>)[k] })])) });

const UserCounts = counts<Overview["users"]>("AdminUserCounts", ["total", "active", "pending", "suspended"]);
const AppStatusCounts = counts<Overview["apps"]["byStatus"]>("AppStatusCounts", [...APP_STATUSES]);
const AppCounts = builder.objectRef<Overview["apps"]>("AdminAppCounts").implement({
  fields: (t) => ({ total: t.exposeInt("total"), byStatus: t.expose("byStatus", { type: AppStatusCounts }) }),
});
const DeploymentCounts = counts<Overview["deployments"]>("AdminDeploymentCounts", ["total", "last24h", "failedLast24h"]);
const CdnUsage = builder.objectRef<Overview["cdn"]>("AdminCdnUsage").implement({
  fields: (t) => ({ files: t.exposeInt("files"), bytes: t.expose("bytes", { type: "Bytes" }) }),
});
const OAuthCounts = counts<Overview["oauth"]>("AdminOAuthCounts", ["clients", "activeTokens"]);
const QuotaRequestCounts = counts<Overview["quotaRequests"]>("AdminQuotaRequestCounts", ["pending"]);

const DayCount = builder.objectRef<{ day: Date; total: number; failed: number }>("DeploymentDay").implement({
  fields: (t) => ({ day: t.expose("day", { type: "DateTime", description: "The day's start (UTC)" }), total: t.exposeInt("total"), failed: t.exposeInt("failed") }),
});
const StorageUse = builder.objectRef<{ userId: string; name: string; bytes: bigint }>("StorageUse").implement({
  fields: (t) => ({ userId: t.exposeID("userId"), name: t.exposeString("name"), bytes: t.expose("bytes", { type: "Bytes" }) }),
});

const AdminStats = builder.objectRef<Overview>("AdminStats").implement({
  description: "Platform-wide numbers (REST: GET /api/admin/stats)",
  fields: (t) => ({
    users: t.expose("users", { type: UserCounts }),
    apps: t.expose("apps", { type: AppCounts }),
    deployments: t.expose("deployments", { type: DeploymentCounts }),
    databases: t.exposeInt("databases"),
    cdn: t.expose("cdn", { type: CdnUsage }),
    oauth: t.expose("oauth", { type: OAuthCounts }),
    quotaRequests: t.expose("quotaRequests", { type: QuotaRequestCounts }),
    sandbox: t.field({
      type: Sandbox,
      description: "The isolation this platform's runtime enforces around every app's processes",
      resolve: (_stats, _args, ctx) => ctx.services.apps.sandbox(),
    }),
    deploymentsByDay: t.field({
      type: [DayCount],
      description: "Deployments started per UTC day, oldest first, with failures",
      args: { days: t.arg.int({ defaultValue: 30, description: "1 to 90" }) },
      complexity: (args) => ({ field: 10, multiplier: Math.min(Math.max(args.days, 1), 90) }),
      resolve: (_stats, { days }, ctx) => {
        if (!Number.isInteger(days) || days < 1 || days > 90) throw new InvalidRequestError("Ask for 1 to 90 days.", { days: "Use 1 to 90." });
        return ctx.services.adminStats.deploymentsByDay(days);
      },
    }),
    topStorage: t.field({
      type: [StorageUse],
      description: "The accounts using the most CDN storage, largest first",
      args: { first: t.arg.int({ defaultValue: 5, description: "1 to 20" }) },
      complexity: (args) => ({ field: 10, multiplier: Math.min(Math.max(args.first, 1), 20) }),
      resolve: (_stats, { first }, ctx) => {
        if (!Number.isInteger(first) || first < 1 || first > 20) throw new InvalidRequestError("Ask for 1 to 20 accounts.", { first: "Use 1 to 20." });
        return ctx.services.adminStats.topStorage(first);
      },
    }),
  }),
});

const ClusterInstanceRef = builder.objectRef<ClusterView["instances"][number]>("ClusterInstance").implement({
  description: "A Slipway instance on this database, as it last renewed its presence",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Stable per machine and DATA_DIR" }),
    address: t.exposeString("address", { description: "host:port it listens on" }),
    runtime: t.exposeString("runtime"),
    leader: t.exposeBoolean("leader", { description: "Whether it holds the leader's lease (it runs cron and scheduled backups)" }),
    startedAt: t.expose("startedAt", { type: "DateTime" }),
    lastSeenAt: t.expose("lastSeenAt", { type: "DateTime", description: "Renewed every third of the lease term while it runs" }),
  }),
});
const ClusterLeaseRef = builder.objectRef<NonNullable<ClusterView["lease"]>>("ClusterLease").implement({
  fields: (t) => ({
    expiresAt: t.expose("expiresAt", { type: "DateTime", description: "When it runs out unless renewed (past: no leader now)" }),
    renewedAt: t.expose("renewedAt", { type: "DateTime" }),
  }),
});
const ClusterQueue = counts<ClusterView["queue"]>("ClusterQueue", ["pending", "running"]);
const Cluster = builder.objectRef<ClusterView>("Cluster").implement({
  description: "The Slipway instances on this database and their leader (REST: GET /api/admin/cluster)",
  fields: (t) => ({
    leader: t.exposeID("leader", { nullable: true, description: "The leader's instance id; null while no instance holds a live lease" }),
    lease: t.expose("lease", { type: ClusterLeaseRef, nullable: true }),
    instances: t.expose("instances", { type: [ClusterInstanceRef] }),
    queue: t.expose("queue", { type: ClusterQueue, description: "Deployments waiting (pending) and being built or started (running)" }),
  }),
});

const ApprovalDecisionEnum = builder.enumType("ApprovalDecision", { values: ["approve", "reject"] as const });
const QuotaDecisionEnum = builder.enumType("QuotaDecision", { values: ["approve", "deny"] as const });

const UpdateUserInput = builder.inputType("UpdateUserInput", {
  fields: (t) => ({
    role: t.field({ type: RoleEnum, required: false }),
    status: t.field({ type: UserStatusEnum, required: false, description: "SUSPENDED stops the account's sessions, tokens, subscriptions and running apps at once" }),
    quota: t.field({ type: QuotaLimitsInput, required: false, description: "New limits (any of them)" }),
  }),
});

const ApprovalInput = builder.inputType("ApprovalInput", {
  fields: (t) => ({ decision: t.field({ type: ApprovalDecisionEnum, description: "approve → ACTIVE, reject → SUSPENDED" }) }),
});

const QuotaDecisionInput = builder.inputType("QuotaDecisionInput", {
  fields: (t) => ({
    decision: t.field({ type: QuotaDecisionEnum }),
    limits: t.field({ type: QuotaLimitsInput, required: false, description: "Approve with these instead of what was asked (any of them)" }),
    reason: t.string({ required: false, description: "Why it is denied (required to deny); the user sees it" }),
  }),
});

builder.queryFields((t) => ({
  adminStats: t.withAuth(ADMIN).field({
    type: AdminStats,
    resolve: (_root, _args, ctx) => ctx.services.adminStats.overview(),
  }),
  cluster: t.withAuth(ADMIN).field({
    type: Cluster,
    resolve: (_root, _args, ctx) => ctx.services.cluster.view(),
  }),
  adminUsers: t.withAuth(ADMIN).prismaField({
    type: ["User"],
    description: "Accounts, newest first, a page at a time; q matches part of the email or the name",
    args: {
      q: t.arg.string({ required: false }),
      status: t.arg({ type: UserStatusEnum, required: false }),
      role: t.arg({ type: RoleEnum, required: false }),
      ...pageArgs(t.arg, "id"),
    },
    complexity: pageCost,
    resolve: (_query, _root, args, ctx) => ctx.services.adminUsers.list(args, pageOf(args)),
  }),
  approvals: t.withAuth(ADMIN).prismaField({
    type: ["User"],
    description: "Accounts waiting for approval (REQUIRE_APPROVAL=true), oldest first",
    args: pageArgs(t.arg, "id"),
    complexity: pageCost,
    resolve: (_query, _root, args, ctx) => ctx.services.adminUsers.pending(pageOf(args)),
  }),
  adminQuotaRequests: t.withAuth(ADMIN).prismaField({
    type: ["QuotaRequest"],
    description: "Limit requests of every account: pending ones oldest first, otherwise newest first",
    args: { status: t.arg({ type: QuotaRequestStatusEnum, required: false }), ...pageArgs(t.arg, "id") },
    complexity: pageCost,
    resolve: (_query, _root, args, ctx) => ctx.services.quotaRequests.list(args.status, pageOf(args)),
  }),
}));

builder.mutationFields((t) => ({
  updateUser: t.withAuth(ADMIN).prismaField({
    type: "User",
    description: "Change an account's role, status and/or quota (the last administrator cannot demote or suspend themself)",
    args: { id: t.arg.id(), input: t.arg({ type: UpdateUserInput }) },
    errors: { types: [InvalidRequestError, NotFoundError, ConflictError] },
    resolve: (_query, _root, { id, input }, ctx) => ctx.services.adminUsers.update(actorOf(ctx), String(id), input),
  }),
  decideApproval: t.withAuth(ADMIN).prismaField({
    type: "User",
    args: { id: t.arg.id(), input: t.arg({ type: ApprovalInput }) },
    errors: { types: [InvalidRequestError, NotFoundError, ConflictError] },
    resolve: (_query, _root, { id, input }, ctx) => ctx.services.adminUsers.decideApproval(actorOf(ctx), String(id), input.decision),
  }),
  decideQuotaRequest: t.withAuth(ADMIN).prismaField({
    type: "QuotaRequest",
    description: "Approve (raises the quota at once, as asked or with adjusted limits) or deny with a reason",
    args: { id: t.arg.id(), input: t.arg({ type: QuotaDecisionInput }) },
    errors: { types: [InvalidRequestError, NotFoundError, ConflictError] },
    resolve: (_query, _root, { id, input }, ctx) => ctx.services.quotaRequests.decide(actorOf(ctx), String(id), input),
  }),
}));
