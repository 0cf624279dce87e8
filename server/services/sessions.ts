// Dashboard sessions: started at sign-in, listed and signed out by their owner. Revoking one is a write to
// the session model, which clears the read cache of session lookups here and on every other instance
// (db/client.ts), so a revoked cookie answers 401 at once everywhere.
import type { Db } from "../db/client.ts";
import { NotFoundError } from "../errors.ts";
import { hashToken, randomToken } from "../auth/secrets.ts";
import type { Acting, AuditService } from "./audit.ts";
import type { Page } from "./pages.ts";
import { describeUserAgent } from "./user-agent.ts";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** lastSeenAt is written at most this often per session: enough for "last used", cheap per request. */
const TOUCH_EVERY_MS = 60_000;

export interface SessionMeta {
  userAgent?: string;
  ip?: string;
}

export interface SessionRecord {
  id: string;
  device: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  current: boolean;
}

export function createSessionService(db: Db, audit: AuditService) {
  const touched = new Map<string, number>();
  const active = (userId: string) => ({ userId, revokedAt: null, expiresAt: { gt: new Date() } });

  async function revokeWhere(where: { userId: string; id?: string | { not: string } }): Promise<number> {
    const { count } = await db.session.updateMany({ where: { ...where, revokedAt: null }, data: { revokedAt: new Date() } });
    return count;
  }

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

    /** Sign-out of the session making the request. */
    async signOut(by: Acting, sessionId: string): Promise<void> {
      if (await revokeWhere({ userId: by.id, id: sessionId })) await audit.by(by, "auth.sign_out", { type: "session", id: sessionId });
    },

    /**
     * Notes that a session was used. Written without Prisma's model API: lastSeenAt is not part of any cached
     * read, so this write must not clear the read cache (as a write to the session model does) on every request.
     */
    touch(sessionId: string): void {
      const now = Date.now();
      if ((touched.get(sessionId) ?? 0) > now - TOUCH_EVERY_MS) return;
      if (touched.size >= 10_000) touched.clear();
      touched.set(sessionId, now);
      const at = new Date(now);
      const before = new Date(now - TOUCH_EVERY_MS);
      db.$executeRaw`UPDATE "Session" SET "lastSeenAt" = ${at} WHERE "id" = ${sessionId} AND "lastSeenAt" < ${before}`.catch(() => {});
    },

    /** A page of the user's active sessions, most recently used first; `currentId` marks the caller's own. */
    async list(userId: string, currentId: string | null, page: Page): Promise<SessionRecord[]> {
      const rows = await db.session.findMany({
        where: active(userId),
        orderBy: [{ lastSeenAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
      });
      return rows.map((row) => ({
        id: row.id,
        device: describeUserAgent(row.userAgent),
        userAgent: row.userAgent,
        ip: row.ip,
        createdAt: row.createdAt,
        lastUsedAt: row.lastSeenAt,
        current: row.id === currentId,
      }));
    },

    /** Signs one of the user's sessions out; another user's (or an ended) session is not found. */
    async revoke(by: Acting, sessionId: string): Promise<void> {
      if (!(await revokeWhere({ userId: by.id, id: sessionId }))) throw new NotFoundError("You have no active session with this id.");
      await audit.by(by, "account.session_revoke", { type: "session", id: sessionId });
    },

    /** Ends every session of the user but `keepId` (all of them without one); answers how many ended. Not audited. */
    endOthers(userId: string, keepId: string | null): Promise<number> {
      return revokeWhere(keepId ? { userId, id: { not: keepId } } : { userId });
    },

    /** The user signs out every other session ("sign out everywhere else"); answers how many ended. */
    async revokeOthers(by: Acting, keepId: string | null): Promise<number> {
      const count = await revokeWhere(keepId ? { userId: by.id, id: { not: keepId } } : { userId: by.id });
      if (count) await audit.by(by, "account.session_revoke", { type: "user", id: by.id }, { sessions: count, allOthers: true });
      return count;
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
