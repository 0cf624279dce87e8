// Limit requests: a user asks for higher limits (REST: POST/GET /api/quota/requests); administrators decide
// them in admin.ts. `User.quotaRequests` rides on the viewer subscription, so a decision shows up live.
import { ConflictError, InvalidRequestError } from "../../errors.ts";
import { builder } from "../builder.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";
import { User } from "./user.ts";

export const QuotaRequestStatusEnum = builder.enumType("QuotaRequestStatus", { values: ["PENDING", "APPROVED", "DENIED"] as const });

interface LimitsShape {
  requestsPerMinute: number | null;
  maxApps: number | null;
  maxDatabases: number | null;
  maxInstances: number | null;
  cdnBytes: bigint | null;
  maxUploadBytes: bigint | null;
}

const QuotaLimits = builder.objectRef<LimitsShape>("QuotaLimits").implement({
  description: "Limits asked for or granted; null where the request leaves the current limit as it is",
  fields: (t) => ({
    requestsPerMinute: t.exposeInt("requestsPerMinute", { nullable: true }),
    maxApps: t.exposeInt("maxApps", { nullable: true }),
    maxDatabases: t.exposeInt("maxDatabases", { nullable: true }),
    maxInstances: t.exposeInt("maxInstances", { nullable: true }),
    cdnBytes: t.expose("cdnBytes", { type: "Bytes", nullable: true }),
    maxUploadBytes: t.expose("maxUploadBytes", { type: "Bytes", nullable: true }),
  }),
});

export const QuotaLimitsInput = builder.inputType("QuotaLimitsInput", {
  description: "Any of the quota's limits, each a whole number from 1 to its maximum",
  fields: (t) => ({
    requestsPerMinute: t.int({ required: false }),
    maxApps: t.int({ required: false }),
    maxDatabases: t.int({ required: false }),
    maxInstances: t.int({ required: false }),
    cdnBytes: t.field({ type: "Bytes", required: false }),
    maxUploadBytes: t.field({ type: "Bytes", required: false }),
  }),
});

const OWN_OR_ADMIN = (userId: string, ctx: { viewer: { user: { id: string } } | null }): { "read:user": true } | { admin: true } =>
  ctx.viewer?.user.id === userId ? { "read:user": true } : { admin: true };

export const QuotaRequest = builder.prismaObject("QuotaRequest", {
  description: "A request for higher limits and its decision",
  fields: (t) => ({
    id: t.exposeID("id"),
    limits: t.field({
      type: QuotaLimits,
      description: "What was asked for; once approved, what was granted",
      resolve: (r) => r,
    }),
    reason: t.exposeString("reason"),
    status: t.expose("status", { type: QuotaRequestStatusEnum }),
    decisionReason: t.exposeString("decisionReason", { nullable: true, description: "Why it was denied" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    decidedAt: t.expose("decidedAt", { type: "DateTime", nullable: true }),
    user: t.relation("user", { authScopes: (r, _args, ctx) => OWN_OR_ADMIN(r.userId, ctx), description: "Who asked" }),
  }),
});

builder.objectField(User, "quotaRequests", (t) =>
  t.prismaField({
    type: ["QuotaRequest"],
    description: "The account's limit requests, newest first",
    authScopes: (user, _args, ctx) => OWN_OR_ADMIN(user.id, ctx),
    args: pageArgs(t.arg, "id"),
    complexity: pageCost,
    resolve: (_query, user, args, ctx) => ctx.services.quotaRequests.mine(user.id, pageOf(args)),
  }),
);

const QuotaRequestInput = builder.inputType("QuotaRequestInput", {
  fields: (t) => ({
    limits: t.field({ type: QuotaLimitsInput, description: "The limits you want; at least one above your current one" }),
    reason: t.string({ description: "Why you need them (an administrator reads it)" }),
  }),
});

builder.queryField("quotaRequests", (t) =>
  t.withAuth({ "read:user": true }).prismaField({
    type: ["QuotaRequest"],
    description: "Your limit requests, newest first",
    args: pageArgs(t.arg, "id"),
    complexity: pageCost,
    resolve: (_query, _root, args, ctx) => ctx.services.quotaRequests.mine(ctx.viewer.user.id, pageOf(args)),
  }),
);

builder.mutationField("requestQuota", (t) =>
  t.withAuth({ "write:user": true }).prismaField({
    type: "QuotaRequest",
    description: "Ask an administrator for higher limits (one pending request at a time: conflict otherwise)",
    args: { input: t.arg({ type: QuotaRequestInput }) },
    errors: { types: [InvalidRequestError, ConflictError] },
    resolve: (_query, _root, { input }, ctx) => ctx.services.quotaRequests.create(ctx.viewer.user.id, input),
  }),
);
