// The audit log: who did what to which target, when, from where. Append-only: the API can add and read
// entries, never change or delete them. Recording never fails the action it describes.
import type { Prisma } from "../generated/sqlite/client.ts";
import type { Db } from "../db/client.ts";

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
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
