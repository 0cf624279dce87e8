import { authScopesFor, type AuthScopes } from "../auth.ts";
import { builder } from "../builder.ts";
import type { ViewerContext } from "../context.ts";

export const RoleEnum = builder.enumType("Role", { values: ["USER", "ADMIN"] as const });
export const UserStatusEnum = builder.enumType("UserStatus", { values: ["ACTIVE", "PENDING", "SUSPENDED"] as const });

interface QuotaShape {
  userId: string;
  requestsPerMinute: number;
  maxApps: number;
  maxDatabases: number;
  maxInstances: number;
  cdnBytes: bigint;
  maxUploadBytes: bigint;
  usage: { apps: number; databases: number; instances: number; cdnBytes: bigint };
}

const Usage = builder.objectRef<QuotaShape["usage"]>("QuotaUsage").implement({
  fields: (t) => ({
    apps: t.exposeInt("apps"),
    databases: t.exposeInt("databases"),
    instances: t.exposeInt("instances", { description: "The most instances any one of the account's apps is set to run" }),
    cdnBytes: t.expose("cdnBytes", { type: "Bytes" }),
  }),
});

export const Quota = builder.objectRef<QuotaShape>("Quota").implement({
  description: "An account's limits and what it currently uses",
  fields: (t) => ({
    requestsPerMinute: t.exposeInt("requestsPerMinute"),
    maxApps: t.exposeInt("maxApps"),
    maxDatabases: t.exposeInt("maxDatabases"),
    maxInstances: t.exposeInt("maxInstances", { description: "The most instances one app may run (App.instances)" }),
    cdnBytes: t.expose("cdnBytes", { type: "Bytes" }),
    maxUploadBytes: t.expose("maxUploadBytes", { type: "Bytes" }),
    usage: t.expose("usage", { type: Usage }),
  }),
});

// Your own quota with read:user; anyone's with admin.
const OWN_QUOTA = { "read:user": true } as const;
const ANY_QUOTA = { admin: true } as const;

export const User = builder.prismaObject("User", {
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { description: "The handle: lowercase letters, digits and hyphens" }),
    preferredUsername: t.exposeString("name"),
    email: t.exposeString("email"),
    emailVerified: t.boolean({
      description: "Whether the owner followed a link mailed to this address (ADMIN_EMAILS applies only then)",
      resolve: (user) => user.emailVerifiedAt !== null,
    }),
    avatar: t.exposeString("avatar", { nullable: true }),
    role: t.expose("role", { type: RoleEnum }),
    status: t.expose("status", { type: UserStatusEnum }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    quota: t.field({
      type: Quota,
      authScopes: (user, _args, ctx) => (ctx.viewer?.user.id === user.id ? OWN_QUOTA : ANY_QUOTA),
      resolve: (user, _args, ctx) => ctx.services.accounts.quotaOf(user.id),
    }),
  }),
});

builder.queryField("me", (t) =>
  t.withAuth({ "read:user": true }).prismaField({
    type: "User",
    description: "The signed-in user",
    resolve: (query, _root, _args, ctx) => ctx.db.user.findUniqueOrThrow({ ...query, where: { id: ctx.viewer.user.id } }),
  }),
);

const ViewerPermissions = builder.objectRef<AuthScopes>("ViewerPermissions").implement({
  description:
    "What the viewer may do now, from the same scopes that guard the schema's fields: an account waiting for approval, " +
    "or a token granted fewer scopes, may read but not write",
  fields: (t) => ({
    writeUser: t.boolean({ description: "Change the account, its OAuth apps and the apps it authorized (write:user)", resolve: (s) => s["write:user"] }),
    writeApps: t.boolean({ description: "Create, deploy, stop and delete apps, databases and files (write:apps)", resolve: (s) => s["write:apps"] }),
    administer: t.boolean({ description: "Administer Slipway: users, approvals and limits (admin)", resolve: (s) => s.admin }),
  }),
});

const ViewerPayload = builder.objectRef<{ user: typeof User.$inferType; quota: QuotaShape }>("Viewer").implement({
  description: "The signed-in user with their quota (REST: GET /api/me) and what they may do",
  fields: (t) => ({
    user: t.field({ type: User, resolve: (v) => v.user }),
    quota: t.expose("quota", { type: Quota }),
    can: t.field({ type: ViewerPermissions, resolve: (_v, _args, ctx) => authScopesFor(ctx) }),
  }),
});

/** Without a promise when both records are cached (the usual case): the whole operation then runs synchronously. */
function loadViewer(ctx: ViewerContext) {
  const { accounts } = ctx.services;
  const id = ctx.viewer.user.id;
  const user = accounts.cachedUser(id);
  const quota = accounts.cachedQuotaOf(id);
  if (user && quota) return { user, quota };
  return Promise.all([user ?? accounts.user(id), quota ?? accounts.quotaOf(id)]).then(([user, quota]) => ({ user, quota }));
}

builder.queryField("viewer", (t) =>
  t.withAuth({ "read:user": true }).field({
    type: ViewerPayload,
    resolve: (_root, _args, ctx) => loadViewer(ctx),
  }),
);

builder.subscriptionField("viewer", (t) =>
  t.withAuth({ "read:user": true }).field({
    type: ViewerPayload,
    description: "The signed-in user and quota now, and again whenever an administrator or a change of usage updates them",
    subscribe: (_root, _args, ctx) => ctx.services.accounts.watch(ctx.viewer.user.id),
    resolve: (_payload, _args, ctx) => loadViewer(ctx),
  }),
);
