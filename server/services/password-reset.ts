// Password reset by a one-time link mailed to the account's address. Rules:
// - asking always gets the same answer, whether or not an account uses the address, and the mail is sent
//   after the answer, so neither the answer nor its timing tells who has an account;
// - at most a few links per address an hour (silently: refusing would tell), and a limit per client address;
// - the link works once, for an hour; the new password passes the same policy as at sign-up;
// - a reset signs the account out everywhere: every session, and every OAuth token (a stranger may have
//   held the account before its owner proved the address);
// - following the link proves the address as a verification link does.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { InvalidRequestError, RateLimitedError } from "../errors.ts";
import { hashPassword } from "../auth/password.ts";
import type { MailLogger, Mailer } from "../platform/mail/index.ts";
import type { CounterStore } from "../platform/ratelimit/index.ts";
import type { AccountTokenService } from "./account-tokens.ts";
import type { EmailVerificationService } from "./email-verification.ts";
import { checks, validate } from "./validation.ts";

const WINDOW_MS = 60 * 60 * 1000;
const REQUESTS = { email: 3, address: 20 };

export function createPasswordResetService(deps: {
  db: Db;
  config: Config;
  counters: CounterStore;
  mailer: Mailer;
  logger: MailLogger;
  accountTokens: AccountTokenService;
  verification: EmailVerificationService;
}) {
  const { db, config, counters, mailer, logger, accountTokens, verification } = deps;

  async function mailLink(email: string) {
    const user = await db.user.findUnique({ where: { email } });
    if (!user || user.status === "SUSPENDED") return;
    const token = await accountTokens.issue(user, "RESET_PASSWORD");
    const link = `${config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
    const text =
      `Hello ${user.name},\n\nSomeone, hopefully you, asked to reset the password of your Slipway account (${user.email}). ` +
      `Open this link within 1 hour to choose a new password:\n\n${link}\n\n` +
      `The link works once. If you did not ask, ignore this message: your password stays as it is.\n`;
    await mailer.send({ to: user.email, subject: "Reset your Slipway password", text });
  }

  return {
    async request(input: { email: string }, ip: string | undefined): Promise<{ message: string }> {
      validate(input as unknown as Record<string, unknown>, { email: checks.email });
      const email = input.email.trim().toLowerCase();
      const perAddress = await counters.increment(`reset:ip:${ip ?? "unknown"}`, WINDOW_MS);
      if (perAddress.count > REQUESTS.address) {
        const wait = Math.max(1, Math.ceil((perAddress.resetAt - Date.now()) / 1000));
        throw new RateLimitedError(wait, `Too many password resets asked from here. Try again in ${Math.ceil(wait / 60)} minutes.`);
      }
      const perEmail = await counters.increment(`reset:email:${email}`, WINDOW_MS);
      if (perEmail.count <= REQUESTS.email) {
        mailLink(email).catch((error: unknown) => logger.error({ err: error, to: email }, "could not send the password-reset mail"));
      }
      return { message: `If an account uses ${email}, a link to reset its password is on its way. It works for one hour.` };
    },

    /** Sets the password chosen from a reset link and signs the account out everywhere. */
    async confirm(input: { token: string; password: string }) {
      const invalid = "This password-reset link is invalid, was already used or has expired. Ask for a new one.";
      const target = await peekUser(input.token);
      validate(input as unknown as Record<string, unknown>, {
        token: () => (target ? null : invalid),
        password: checks.newPassword(target?.email, target?.name),
      });
      const passwordHash = await hashPassword(input.password);
      const used = await accountTokens.consume(input.token, "RESET_PASSWORD");
      if (!used) throw new InvalidRequestError(invalid, { token: invalid });
      const now = new Date();
      await db.$transaction([
        db.user.update({ where: { id: used.userId }, data: { passwordHash } }),
        db.session.updateMany({ where: { userId: used.userId, revokedAt: null }, data: { revokedAt: now } }),
        db.oAuthToken.updateMany({ where: { userId: used.userId, revokedAt: null }, data: { revokedAt: now } }),
      ]);
      return (await verification.markVerified(used.userId, used.email)) ?? db.user.findUniqueOrThrow({ where: { id: used.userId } });
    },
  };

  /** The account a reset token would reset, read without using the token (to check the password against it first). */
  async function peekUser(token: unknown) {
    const peeked = await accountTokens.peek(token, "RESET_PASSWORD");
    const user = peeked && (await db.user.findUnique({ where: { id: peeked.userId }, select: { email: true, name: true } }));
    return user && user.email === peeked.email ? user : null; // a link sent to an address the account no longer has is void
  }
}

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
