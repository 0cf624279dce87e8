// The audit log: who did what to which target, when, from where. Append-only: the API can add and read
// entries, never change or delete them. Recording never fails the action it describes.
// Each audited action is recorded by the one service that performs it (never by a transport), as a dotted
// verb: auth.sign_in, auth.sign_in_failed, auth.sign_in_throttled, auth.sign_in_refused, auth.sign_out, account.name_change, account.email_change,
// account.password_change, account.session_revoke, account.delete, oauth.consent, oauth.revoke,
// oauth.client_create, oauth.client_secret_rotate, oauth.client_secret_delete, oauth.client_delete, app.delete, env.set, env.unset.
// Details hold names and addresses only: never a password, a token, a secret or an env var's value.
import type { Prisma } from "../generated/sqlite/client.ts";
import type { Db } from "../db/client.ts";
import type { Page } from "./pages.ts";

/** What administrators filter the log by; every filter is optional. */
export interface AuditFilter {
  /** The actor's id or name (exact). */
  actor?: string | null;
  /** An exact action ("admin.user.suspend") or a prefix ending in a dot ("admin."). */
  action?: string | null;
  /** The target's id (exact). */
  target?: string | null;
  since?: Date | null;
  until?: Date | null;
}

/** Who does something and from where: what a service records in the audit log for a user's own action. */
export interface Acting {
  id: string;
  name: string;
  /** The client's address as the server sees it. */
  ip?: string | null;
}

export interface AuditEntry {
  /** The user who acted; null for an anonymous attempt (a failed sign-in for an unknown email). */
  actor: { id: string; name: string } | null;
  action: string;
  target?: { type: string; id: string };
  details?: Record<string, unknown>;
  ip?: string | null;
}

export interface AuditLogger {
  warn(details: object, message: string): void;
}

export function createAuditService(db: Db, logger: AuditLogger) {
  async function record(entry: AuditEntry): Promise<void> {
    try {
      await db.auditEvent.create({
        data: {
          actorId: entry.actor?.id ?? null,
          actorName: entry.actor?.name ?? null,
          action: entry.action,
          targetType: entry.target?.type ?? null,
          targetId: entry.target?.id ?? null,
          details: (entry.details ?? undefined) as Prisma.InputJsonValue | undefined,
          ip: entry.ip ?? null,
        },
      });
    } catch (error) {
      logger.warn({ err: error, action: entry.action }, "could not record an audit event");
    }
  }

  return {
    record,

    /** Records a user's own action: the actor and the address come from `by`. */
    by(by: Acting, action: string, target?: AuditEntry["target"], details?: AuditEntry["details"]): Promise<void> {
      return record({ actor: { id: by.id, name: by.name }, action, target, details, ip: by.ip });
    },

    /** A page of entries, newest first; `after` is the id of the last entry of the previous page. */
    list(filter: AuditFilter, page: Page) {
      const action = filter.action?.trim();
      return db.auditEvent.findMany({
        where: {
          ...(filter.actor ? { OR: [{ actorId: filter.actor }, { actorName: filter.actor }] } : {}),
          ...(action ? { action: action.endsWith(".") ? { startsWith: action } : action } : {}),
          ...(filter.target ? { targetId: filter.target } : {}),
          ...(filter.since || filter.until ? { createdAt: { ...(filter.since ? { gte: filter.since } : {}), ...(filter.until ? { lt: filter.until } : {}) } } : {}),
        },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
      });
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
