// Email verification: a one-time link mailed at sign-up (and again on request) proves that the user
// receives mail at their address. ADMIN_EMAILS grants ADMIN only to a verified address: at verification,
// or at a later sign-in of a verified user whose address was listed later. It never demotes.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { InvalidRequestError, RateLimitedError } from "../errors.ts";
import type { MailLogger, Mailer } from "../platform/mail/index.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { CounterStore } from "../platform/ratelimit/index.ts";
import type { AccountTokenService } from "./account-tokens.ts";
import { accountTopic } from "./topics.ts";

const RESEND_WINDOW_MS = 60 * 60 * 1000;
const RESENDS_PER_WINDOW = 5;

interface UserRow {
  id: string;
  name: string;
  email: string;
  role: string;
  status: string;
  emailVerifiedAt: Date | null;
}

export function createEmailVerificationService(deps: {
  db: Db;
  config: Config;
  counters: CounterStore;
  pubsub: PubSub;
  mailer: Mailer;
  logger: MailLogger;
  accountTokens: AccountTokenService;
}) {
  const { db, config, counters, pubsub, mailer, logger, accountTokens } = deps;

  async function mailLink(user: UserRow) {
    const token = await accountTokens.issue(user, "VERIFY_EMAIL");
    const link = `${config.publicUrl}/verify?token=${encodeURIComponent(token)}`;
    const text =
      `Hello ${user.name},\n\nConfirm that ${user.email} is your address on Slipway by opening this link within 48 hours:\n\n` +
      `${link}\n\nIf you did not create a Slipway account, ignore this message.\n`;
    // Not awaited: a slow or failing mail server must not hold up (or fail) the request that asked for it.
    mailer.send({ to: user.email, subject: "Confirm your email address for Slipway", text }).catch((error: unknown) => {
      logger.error({ err: error, to: user.email }, "could not send the verification mail");
    });
  }

  async function promoteIfListed<U extends UserRow>(user: U): Promise<U> {
    if (!user.emailVerifiedAt || !config.adminEmails.has(user.email) || (user.role === "ADMIN" && user.status === "ACTIVE")) return user;
    const promoted = await db.user.update({ where: { id: user.id }, data: { role: "ADMIN", status: "ACTIVE" } });
    await pubsub.publish(accountTopic(user.id), { userId: user.id });
    return promoted as unknown as U;
  }

  /**
   * Marks `email` verified (a verification or password-reset link sent there was followed), then applies
   * ADMIN_EMAILS. Null when the account no longer has that address.
   */
  async function markVerified(userId: string, email: string) {
    const { count } = await db.user.updateMany({ where: { id: userId, email, emailVerifiedAt: null }, data: { emailVerifiedAt: new Date() } });
    const user = await db.user.findUnique({ where: { id: userId } });
    if (!user || user.email !== email) return null;
    if (count) await pubsub.publish(accountTopic(userId), { userId });
    return promoteIfListed(user);
  }

  return {
    /** Mails a new account its verification link. */
    sendLink: mailLink,

    /** Mails the signed-in user a new link, a few times an hour at most. */
    async resend(userId: string): Promise<{ message: string }> {
      const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
      if (user.emailVerifiedAt) return { message: `${user.email} is already verified.` };
      const counter = await counters.increment(`verify-resend:${userId}`, RESEND_WINDOW_MS);
      if (counter.count > RESENDS_PER_WINDOW) {
        const wait = Math.max(1, Math.ceil((counter.resetAt - Date.now()) / 1000));
        throw new RateLimitedError(wait, `Verification mail was sent several times already. Try again in ${Math.ceil(wait / 60)} minutes.`);
      }
      await mailLink(user);
      return { message: `A new verification link is on its way to ${user.email}.` };
    },

    /** Follows a verification link: the user with their address verified (and ADMIN when listed). */
    async verify(token: unknown) {
      const used = await accountTokens.consume(token, "VERIFY_EMAIL");
      const user = used && (await markVerified(used.userId, used.email));
      if (!user) {
        const message = "This verification link is invalid, was already used or has expired. Sign in and ask for a new one.";
        throw new InvalidRequestError(message, { token: message });
      }
      return user;
    },

    markVerified,
    promoteIfListed,
  };
}

export type EmailVerificationService = ReturnType<typeof createEmailVerificationService>;
