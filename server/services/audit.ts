// The audit log: who did what to which target, when, from where. Append-only: the API can add and read
// entries, never change or delete them. Recording never fails the action it describes.
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
  return {
    async record(entry: AuditEntry): Promise<void> {
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
