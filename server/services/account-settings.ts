// Account self-service: the owner changes their handle, email address and password. Rules:
// - the handle follows the sign-up rules; a taken handle or email is 409 conflict;
// - an email or password change needs the current password, checked through the sign-in throttle (a
//   stolen session cannot guess it faster than a sign-in form could); a wrong one is 400 on currentPassword;
// - a changed email is unverified again and a verification link is mailed to it; ADMIN_EMAILS applies only
//   once that link is followed (email-verification.ts), so claiming a listed address grants nothing; the old
//   address is told of the change (someone holding a session could otherwise take the account quietly);
// - a password change ends every other session of the account; the session making the change stays signed
//   in. Authorized OAuth apps keep their tokens (revoke them on the OAuth apps page; a password reset, which
//   assumes a stranger may have held the account, revokes them all).
import type { Db } from "../db/client.ts";
import { ConflictError, InvalidRequestError } from "../errors.ts";
import { hashPassword, verifyPassword } from "../auth/password.ts";
import type { MailLogger, Mailer } from "../platform/mail/index.ts";
import type { AccountService } from "./accounts.ts";
import type { Acting, AuditService } from "./audit.ts";
import type { EmailVerificationService } from "./email-verification.ts";
import type { LoginThrottle } from "./login-throttle.ts";
import type { SessionService } from "./sessions.ts";
import { checks, uniqueViolation, validate, type Check } from "./validation.ts";

export interface ProfileInput {
  name?: string | null;
  email?: string | null;
  currentPassword?: string | null;
}

export interface PasswordChangeInput {
  currentPassword: string;
  newPassword: string;
}

const WRONG_PASSWORD = "The current password is incorrect.";
const ENTER_PASSWORD: Check = (v) => (typeof v === "string" && v ? null : "Enter your current password.");

export function createAccountSettingsService(deps: {
  db: Db;
  accounts: AccountService;
  sessions: SessionService;
  throttle: LoginThrottle;
  verification: EmailVerificationService;
  audit: AuditService;
  mailer: Mailer;
  logger: MailLogger;
}) {
  const { db, accounts, sessions, throttle, verification, audit, mailer, logger } = deps;

  /** Not awaited: a slow or failing mail server must not hold up (or fail) the change. */
  function tellOldAddress(user: { name: string; email: string }, newEmail: string) {
    const text =
      `Hello ${user.name},\n\nThe email address of your Slipway account was changed from ${user.email} to ${newEmail}.\n\n` +
      `If you did not make this change, someone else may be using your account: contact your Slipway administrator.\n`;
    mailer.send({ to: user.email, subject: "Your Slipway email address was changed", text }).catch((error: unknown) => {
      logger.error({ err: error, to: user.email }, "could not send the email-change notice");
    });
  }

  /** Checks the current password (counted like a sign-in attempt); 400 on currentPassword when wrong. */
  async function confirmPassword(user: { email: string; passwordHash: string }, password: string, ip: string | null | undefined) {
    const attempt = await throttle.attempt(user.email, ip ?? undefined);
    if (!(await verifyPassword(password, user.passwordHash))) throw new InvalidRequestError(WRONG_PASSWORD, { currentPassword: WRONG_PASSWORD });
    await attempt.succeeded();
  }

  return {
    async updateProfile(by: Acting, input: ProfileInput) {
      const user = await db.user.findUniqueOrThrow({ where: { id: by.id } });
      const email = typeof input.email === "string" ? input.email.trim().toLowerCase() : input.email;
      const newName = input.name != null && input.name !== user.name ? input.name : null;
      const newEmail = email != null && email !== user.email ? email : null;
      if (input.name == null && input.email == null) throw new InvalidRequestError("Give a new name or email.", { name: "Give a new name or email." });
      validate({ ...input, email } as Record<string, unknown>, {
        ...(input.name != null ? { name: checks.handle } : {}),
        ...(email != null ? { email: checks.email } : {}),
        ...(newEmail ? { currentPassword: ENTER_PASSWORD } : {}),
      });
      if (!newName && !newEmail) return user;
      const taken = await db.user.findFirst({
        where: { id: { not: user.id }, OR: [...(newName ? [{ name: newName }] : []), ...(newEmail ? [{ email: newEmail }] : [])] },
        select: { name: true, email: true },
      });
      if (taken) throw conflictFor(taken.email === newEmail ? "email" : "name");
      if (newEmail) await confirmPassword(user, input.currentPassword!, by.ip);
      let updated;
      try {
        updated = await db.user.update({
          where: { id: user.id },
          data: { ...(newName ? { name: newName } : {}), ...(newEmail ? { email: newEmail, emailVerifiedAt: null } : {}) },
        });
      } catch (error) {
        const fields = uniqueViolation(error);
        if (fields) throw conflictFor(fields.includes("email") ? "email" : "name");
        throw error;
      }
      const now = { id: updated.id, name: updated.name, ip: by.ip };
      if (newName) await audit.by(now, "account.name_change", { type: "user", id: user.id }, { from: user.name, to: newName });
      if (newEmail) {
        await audit.by(now, "account.email_change", { type: "user", id: user.id }, { from: user.email, to: newEmail });
        await verification.sendLink(updated);
        tellOldAddress(user, newEmail);
      }
      await accounts.changed(user.id);
      return updated;
    },

    /** Sets a new password and ends the account's other sessions (all of them when `currentSessionId` is null). */
    async changePassword(by: Acting, currentSessionId: string | null, input: PasswordChangeInput) {
      const user = await db.user.findUniqueOrThrow({ where: { id: by.id } });
      validate(input as unknown as Record<string, unknown>, {
        currentPassword: ENTER_PASSWORD,
        newPassword: checks.newPassword(user.email, user.name),
      });
      await confirmPassword(user, input.currentPassword, by.ip);
      const passwordHash = await hashPassword(input.newPassword);
      await db.user.update({ where: { id: user.id }, data: { passwordHash } });
      const signedOutSessions = await sessions.endOthers(user.id, currentSessionId);
      await audit.by(by, "account.password_change", { type: "user", id: user.id }, { signedOutSessions });
      return { user, signedOutSessions };
    },
  };
}

function conflictFor(field: "email" | "name") {
  const message = field === "email" ? "Another account uses this email address." : "This name is taken. Choose another.";
  return new ConflictError(message, { [field]: message });
}

export type AccountSettingsService = ReturnType<typeof createAccountSettingsService>;
