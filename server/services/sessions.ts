import type { Db } from "../db/client.ts";
import { hashToken, randomToken } from "../auth/secrets.ts";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface SessionMeta {
  userAgent?: string;
  ip?: string;
}

export function createSessionService(db: Db) {
  return {
    /** Starts a session; the raw token goes to the cookie and nowhere else. */
    async start(userId: string, meta: SessionMeta): Promise<{ token: string; expiresAt: Date }> {
      const token = randomToken();
      const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
      await db.session.create({
        data: { tokenHash: hashToken(token), userId, expiresAt, userAgent: meta.userAgent?.slice(0, 500), ip: meta.ip },
      });
      return { token, expiresAt };
    },

    async revoke(sessionId: string): Promise<void> {
      await db.session.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: new Date() } });
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
