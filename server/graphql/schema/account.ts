// Account self-service: change name, email and password, list and sign out sessions, delete the account.
// REST: PATCH /api/me, POST /api/me/password, GET/DELETE /api/me/sessions, DELETE /api/me/sessions/:id,
// DELETE /api/me. The rules are in services/account-settings.ts, sessions.ts and account-deletion.ts.
import { ConflictError, InvalidRequestError } from "../../errors.ts";
import type { SessionRecord } from "../../services/sessions.ts";
import { builder } from "../builder.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";
import { acting, currentSessionId } from "../context.ts";
import { User } from "./user.ts";

const READ = { "read:user": true } as const;
const WRITE = { "write:user": true } as const;

const Session = builder.objectRef<SessionRecord>("Session").implement({
  description: "A signed-in dashboard session of your account",
  fields: (t) => ({
    id: t.exposeID("id"),
    device: t.exposeString("device", { description: 'The browser and system its User-Agent names, like "Firefox on Linux"' }),
    userAgent: t.exposeString("userAgent", { nullable: true }),
    address: t.exposeString("ip", { nullable: true, description: "The client address it signed in from" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it signed in" }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", description: "Its last request (to the minute)" }),
    current: t.exposeBoolean("current", { description: "The session making this request" }),
  }),
});

const UpdateAccountInput = builder.inputType("UpdateAccountInput", {
  fields: (t) => ({
    name: t.string({ required: false, description: "A new handle: the sign-up rules; 409 when taken" }),
    email: t.string({ required: false, description: "A new address: unverified until the link mailed to it is followed" }),
    currentPassword: t.string({ required: false, description: "Required to change the email" }),
  }),
});

const ChangePasswordInput = builder.inputType("ChangePasswordInput", {
  fields: (t) => ({ currentPassword: t.string(), newPassword: t.string({ description: "The sign-up password rules" }) }),
});

const DeleteAccountInput = builder.inputType("DeleteAccountInput", {
  fields: (t) => ({ confirm: t.string({ description: "Your handle, typed to confirm" }) }),
});

const PasswordChanged = builder.objectRef<{ user: typeof User.$inferType; signedOutSessions: number }>("PasswordChanged").implement({
  fields: (t) => ({
    user: t.field({ type: User, resolve: (p) => p.user }),
    signedOutSessions: t.exposeInt("signedOutSessions", { description: "How many other sessions were signed out" }),
  }),
});

builder.queryField("sessions", (t) =>
  t.withAuth(READ).field({
    type: [Session],
    description: "Your active sessions, most recently used first, a page at a time",
    args: pageArgs(t.arg, "id"),
    complexity: pageCost,
    resolve: (_root, args, ctx) => ctx.services.sessions.list(ctx.viewer.user.id, currentSessionId(ctx), pageOf(args)),
  }),
);

builder.mutationFields((t) => ({
  updateAccount: t.withAuth(WRITE).field({
    type: User,
    description: "Change your handle and/or email (the current password is needed for the email)",
    args: { input: t.arg({ type: UpdateAccountInput }) },
    errors: { types: [InvalidRequestError, ConflictError] },
    resolve: (_root, { input }, ctx) => ctx.services.accountSettings.updateProfile(acting(ctx), input),
  }),
  changePassword: t.withAuth(WRITE).field({
    type: PasswordChanged,
    description: "Change your password; every other session is signed out (this one stays)",
    args: { input: t.arg({ type: ChangePasswordInput }) },
    errors: { types: [InvalidRequestError] },
    resolve: (_root, { input }, ctx) => ctx.services.accountSettings.changePassword(acting(ctx), currentSessionId(ctx), input),
  }),
  revokeSession: t.withAuth(WRITE).boolean({
    description: "Sign one of your sessions out (signing out this one also clears its cookie); not_found for any other id",
    args: { id: t.arg.id() },
    resolve: async (_root, { id }, ctx) => {
      await ctx.services.sessions.revoke(acting(ctx), String(id));
      if (String(id) === currentSessionId(ctx)) ctx.sessionCookie.clear();
      return true;
    },
  }),
  revokeOtherSessions: t.withAuth(WRITE).int({
    description: "Sign out every session but this one; answers how many were signed out",
    resolve: (_root, _args, ctx) => ctx.services.sessions.revokeOthers(acting(ctx), currentSessionId(ctx)),
  }),
  deleteAccount: t.withAuth({ $all: { ...WRITE, session: true } }).boolean({
    description:
      "Delete your account with its apps, databases, files, OAuth clients and tokens (from a dashboard session only). " +
      "The last administrator cannot delete themself (conflict); a wrong confirmation is invalid_request.",
    args: { input: t.arg({ type: DeleteAccountInput }) },
    resolve: async (_root, { input }, ctx) => {
      await ctx.services.accountDeletion.remove(acting(ctx), input.confirm);
      ctx.sessionCookie.clear();
      return true;
    },
  }),
}));
