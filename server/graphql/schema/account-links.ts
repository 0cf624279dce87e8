// Email verification and password reset: the mutations behind the links Slipway mails.
// The link's token is the credential, so verifyEmail and resetPassword need no session.
import { InvalidRequestError } from "../../errors.ts";
import { builder } from "../builder.ts";
import { User } from "./user.ts";

const EmailSent = builder.objectRef<{ message: string }>("EmailSent").implement({
  description: "A mail was sent, or, for an address without an account, would have been: the answer does not say which",
  fields: (t) => ({ message: t.exposeString("message") }),
});

const UserPayload = builder.objectRef<{ user: typeof User.$inferType }>("UserPayload").implement({
  fields: (t) => ({ user: t.field({ type: User, resolve: (p) => p.user }) }),
});

const VerifyEmailInput = builder.inputType("VerifyEmailInput", {
  fields: (t) => ({ token: t.string({ description: "The token of the link mailed to the address" }) }),
});

const PasswordResetRequestInput = builder.inputType("PasswordResetRequestInput", {
  fields: (t) => ({ email: t.string() }),
});

const ResetPasswordInput = builder.inputType("ResetPasswordInput", {
  fields: (t) => ({
    token: t.string({ description: "The token of the password-reset link" }),
    password: t.string({ description: "The new password" }),
  }),
});

builder.mutationFields((t) => ({
  verifyEmail: t.field({
    type: UserPayload,
    description: "Follow an email verification link: marks the address verified (and applies ADMIN_EMAILS)",
    args: { input: t.arg({ type: VerifyEmailInput }) },
    errors: { types: [InvalidRequestError] },
    resolve: async (_root, { input }, ctx) => ({ user: await ctx.services.verification.verify(input.token) }),
  }),
  resendVerificationEmail: t.withAuth({ session: true }).field({
    type: EmailSent,
    description: "Mail the signed-in user a new verification link",
    resolve: (_root, _args, ctx) => ctx.services.verification.resend(ctx.viewer.user.id),
  }),
  requestPasswordReset: t.field({
    type: EmailSent,
    description: "Mail a password-reset link to the address, if an account uses it. The answer is the same either way.",
    args: { input: t.arg({ type: PasswordResetRequestInput }) },
    errors: { types: [InvalidRequestError] },
    resolve: (_root, { input }, ctx) => ctx.services.passwordReset.request(input, ctx.client.ip),
  }),
  resetPassword: t.field({
    type: UserPayload,
    description: "Set a new password from a password-reset link; signs the account out everywhere",
    args: { input: t.arg({ type: ResetPasswordInput }) },
    errors: { types: [InvalidRequestError] },
    resolve: async (_root, { input }, ctx) => ({ user: await ctx.services.passwordReset.confirm(input) }),
  }),
}));
