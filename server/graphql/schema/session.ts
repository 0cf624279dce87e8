// Dashboard sign-up, sign-in and sign-out. The session travels in the HttpOnly cookie set here.
import { ConflictError, InvalidRequestError } from "../../errors.ts";
import { builder } from "../builder.ts";
import type { Context } from "../context.ts";
import { User } from "./user.ts";

const SignupInput = builder.inputType("SignupInput", {
  fields: (t) => ({
    email: t.string(),
    password: t.string(),
    name: t.string({ description: "Your handle: 1–39 lowercase letters, digits or hyphens" }),
  }),
});

const LoginInput = builder.inputType("LoginInput", {
  fields: (t) => ({ email: t.string(), password: t.string() }),
});

const AuthPayload = builder.objectRef<{ user: UserRow }>("AuthPayload").implement({
  fields: (t) => ({ user: t.field({ type: User, resolve: (p) => p.user }) }),
});

type UserRow = typeof User.$inferType;
type Started = { user: UserRow; session: { token: string; expiresAt: Date } };

/** A cross-site request is refused before any account or session is created (login CSRF). */
async function signIn(ctx: Context, start: () => Promise<Started>) {
  ctx.sessionCookie.assertSameOrigin();
  const { user, session } = await start();
  ctx.sessionCookie.set(session.token, session.expiresAt);
  return { user };
}

builder.mutationField("signup", (t) =>
  t.field({
    type: AuthPayload,
    description: "Create an account and sign in",
    args: { input: t.arg({ type: SignupInput }) },
    errors: { types: [InvalidRequestError, ConflictError] },
    resolve: (_root, { input }, ctx) => signIn(ctx, () => ctx.services.accounts.signup(input, ctx.client)),
  }),
);

builder.mutationField("login", (t) =>
  t.field({
    type: AuthPayload,
    description: "Sign in with email and password",
    args: { input: t.arg({ type: LoginInput }) },
    errors: { types: [InvalidRequestError] },
    resolve: (_root, { input }, ctx) => signIn(ctx, () => ctx.services.accounts.login(input, ctx.client)),
  }),
);

builder.mutationField("logout", (t) =>
  t.boolean({
    description: "Sign out: revokes this session. Succeeds without a session too.",
    resolve: async (_root, _args, ctx) => {
      const viewer = ctx.viewer;
      if (viewer?.via.kind === "session") await ctx.services.sessions.signOut({ ...viewer.user, ip: ctx.client.ip }, viewer.via.sessionId);
      ctx.sessionCookie.clear();
      return true;
    },
  }),
);
