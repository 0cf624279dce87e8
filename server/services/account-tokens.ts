// One-time links mailed to a user: email verification and password reset. The raw token travels only in
// the mailed link; the database keeps its SHA-256, like sessions. A token works once, before it expires,
// for its own purpose only; using one retires every other unused token of that user and purpose.
import type { Db } from "../db/client.ts";
import { hashToken, randomToken } from "../auth/secrets.ts";

export type AccountTokenPurpose = "VERIFY_EMAIL" | "RESET_PASSWORD";

export const ACCOUNT_TOKEN_TTL_MS: Record<AccountTokenPurpose, number> = {
  VERIFY_EMAIL: 48 * 60 * 60 * 1000,
  RESET_PASSWORD: 60 * 60 * 1000,
};

export function createAccountTokenService(db: Db) {
  return {
    /** A new token for `user`, bound to the address it is mailed to. */
    async issue(user: { id: string; email: string }, purpose: AccountTokenPurpose): Promise<string> {
      const token = randomToken();
      const expiresAt = new Date(Date.now() + ACCOUNT_TOKEN_TTL_MS[purpose]);
      await db.accountToken.create({ data: { tokenHash: hashToken(token), userId: user.id, purpose, email: user.email, expiresAt } });
      return token;
    },

    /** The token's user id and address while it is usable, without using it. */
    async peek(token: unknown, purpose: AccountTokenPurpose): Promise<{ userId: string; email: string } | null> {
      if (!isToken(token)) return null;
      return db.accountToken.findFirst({
        where: { tokenHash: hashToken(token), purpose, usedAt: null, expiresAt: { gt: new Date() } },
        select: { userId: true, email: true },
      });
    },

    /**
     * Uses the token: its user id and address, or null when it is unknown, of another purpose, expired or
     * already used. The conditional update lets exactly one of two simultaneous uses through.
     */
    async consume(token: unknown, purpose: AccountTokenPurpose): Promise<{ userId: string; email: string } | null> {
      if (!isToken(token)) return null;
      const now = new Date();
      const row = await db.accountToken.findUnique({ where: { tokenHash: hashToken(token) }, select: { id: true, userId: true, email: true, purpose: true } });
      if (!row || row.purpose !== purpose) return null;
      const { count } = await db.accountToken.updateMany({ where: { id: row.id, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
      if (count !== 1) return null;
      await db.accountToken.updateMany({ where: { userId: row.userId, purpose, usedAt: null }, data: { usedAt: now } });
      return { userId: row.userId, email: row.email };
    },
  };
}

export type AccountTokenService = ReturnType<typeof createAccountTokenService>;

const isToken = (token: unknown): token is string => typeof token === "string" && token.length > 0 && token.length <= 200;
