// Database backups: on demand and on a schedule (every BACKUP_INTERVAL_HOURS per database), kept
// BACKUP_RETENTION_DAYS, stored through the object storage (never a folder an app can read), downloadable by
// the owner, and restorable in one action into the same database, with the app stopped meanwhile and started
// again after. Work files live in DATA_DIR/tmp (0700, the platform's own) only while a backup is made or restored.
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { NotFoundError } from "../errors.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import type { ObjectStorage } from "../platform/storage/index.ts";
import type { CounterStore } from "../platform/ratelimit/index.ts";
import type { AuditService } from "./audit.ts";
import type { Page } from "./pages.ts";
import type { Actor, ResourceRow, ResourceService } from "./resources.ts";

export type BackupRow = Awaited<ReturnType<Db["backup"]["findUniqueOrThrow"]>>;
export type BackupTrigger = "manual" | "scheduled";

export interface BackupLogger {
  error(details: object, message: string): void;
}

const HOUR = 3600_000;
/** How long a claim on a scheduled backup holds when its instance never releases it. */
const CLAIM_MS = 30 * 60_000;

export function createBackupService(deps: {
  db: Db;
  config: Config;
  engine: ClusterEngine;
  storage: ObjectStorage;
  resources: ResourceService;
  audit: AuditService;
  logger: BackupLogger;
  /** Shared by every instance (Redis) or this process's own: one instance claims each scheduled backup. */
  counters: CounterStore;
}) {
  const { db, storage, resources } = deps;
  const workDir = path.join(deps.config.dataDir, "tmp", "backups");
  /** One backup or restore at a time per database. */
  const busy = new Map<string, Promise<unknown>>();

  function serialised<T>(resourceId: string, work: () => Promise<T>): Promise<T> {
    const previous = busy.get(resourceId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    busy.set(resourceId, next);
    void next.finally(() => busy.get(resourceId) === next && busy.delete(resourceId)).catch(() => {});
    return next;
  }

  async function withWorkFile<T>(use: (file: string) => Promise<T>): Promise<T> {
    await fs.mkdir(workDir, { recursive: true, mode: 0o700 });
    const file = path.join(workDir, randomBytes(12).toString("hex"));
    try {
      return await use(file);
    } finally {
      await fs.rm(file, { force: true });
    }
  }

  const contentTypeOf = (r: ResourceRow) => (r.type === "postgres" ? "application/octet-stream" : "application/vnd.sqlite3");
  const fileNameOf = (r: ResourceRow, b: BackupRow) => `${r.name}-${b.createdAt.toISOString().replace(/[:.]/g, "-")}.${r.type === "postgres" ? "dump" : "db"}`;

  async function run(resource: ResourceRow, trigger: BackupTrigger): Promise<BackupRow> {
    return serialised(resource.id, () =>
      withWorkFile(async (file) => {
        await resources.provisionerOf(resource).backup({ id: resource.id, appId: resource.appId }, resources.urlOf(resource), file);
        const id = `b${randomBytes(12).toString("hex")}`;
        const storageKey = `backups/${resource.id}/${id}`;
        const stored = await storage.put(storageKey, createReadStream(file), { contentType: contentTypeOf(resource) });
        try {
          return await db.backup.create({ data: { id, resourceId: resource.id, storageKey, size: BigInt(stored.size), trigger } });
        } catch (error) {
          await storage.delete(storageKey); // the database went away meanwhile
          throw error;
        }
      }),
    );
  }

  async function remove(backup: BackupRow): Promise<void> {
    await storage.delete(backup.storageKey);
    await db.backup.deleteMany({ where: { id: backup.id } });
  }

  async function mineBackup(ownerId: string, resourceId: string, backupId: string) {
    const resource = await resources.mine(ownerId, resourceId);
    const backup = typeof backupId === "string" ? await db.backup.findUnique({ where: { id: backupId } }) : null;
    if (!backup || backup.resourceId !== resource.id) throw new NotFoundError("This database has no backup with this id.");
    return { resource, backup };
  }

  // A deleted database takes its backups with it.
  resources.onDelete(async (resource) => {
    for (const backup of await db.backup.findMany({ where: { resourceId: resource.id } })) await remove(backup);
  });

  let timer: NodeJS.Timeout | undefined;

  const service = {
    /** A page of the database's backups, newest first; `after` names the last backup of the previous page. */
    list: (resourceId: string, page: Page) =>
      db.backup.findMany({
        where: { resourceId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
      }),

    async listMine(ownerId: string, resourceId: string, page: Page): Promise<BackupRow[]> {
      return service.list((await resources.mine(ownerId, resourceId)).id, page);
    },

    async create(actor: Actor, resourceId: string): Promise<BackupRow> {
      const resource = await resources.mine(actor.user.id, resourceId);
      const backup = await run(resource, "manual");
      await deps.audit.record({ actor: actor.user, action: "backup.create", target: { type: "resource", id: resource.id }, details: { backup: backup.id, size: Number(backup.size) }, ip: actor.ip });
      return backup;
    },

    /** The backup's bytes (or a presigned URL when the storage serves them itself), for the owner. */
    async download(ownerId: string, resourceId: string, backupId: string): Promise<{ url: string } | { body: Readable; size: number; fileName: string; contentType: string }> {
      const { resource, backup } = await mineBackup(ownerId, resourceId, backupId);
      const fileName = fileNameOf(resource, backup);
      const contentType = contentTypeOf(resource);
      const url = await storage.directUrl(backup.storageKey, { fileName, contentType, expiresInSeconds: 300 });
      if (url) return { url };
      return { body: await storage.get(backup.storageKey), size: Number(backup.size), fileName, contentType };
    },

    /** Puts the backup's content back into the same database, with the app stopped meanwhile and restarted. */
    async restore(actor: Actor, resourceId: string, backupId: string): Promise<BackupRow> {
      const { resource, backup } = await mineBackup(actor.user.id, resourceId, backupId);
      await serialised(resource.id, () =>
        withWorkFile(async (file) => {
          await pipeline(await storage.get(backup.storageKey), createWriteStream(file, { mode: 0o600 }));
          await deps.engine.whileStopped(resource.app, () =>
            resources.provisionerOf(resource).restore({ id: resource.id, appId: resource.appId }, resources.urlOf(resource), file),
          );
        }),
      );
      await deps.audit.record({ actor: actor.user, action: "backup.restore", target: { type: "resource", id: resource.id }, details: { backup: backup.id, app: resource.app.slug }, ip: actor.ip });
      return backup;
    },

    /** Backs up every database whose newest backup is older than the interval, then drops expired backups. */
    async runScheduled(now = new Date()): Promise<void> {
      const due = new Date(now.getTime() - deps.config.backups.intervalHours * HOUR);
      const candidates = await db.resource.findMany({ where: { createdAt: { lte: due }, backups: { none: { createdAt: { gt: due } } } } });
      for (const resource of candidates) {
        // Every instance's timer finds the same due databases: the first to claim one backs it up, the others
        // skip it (and after it, it is no longer due). A claim outlives an instance that died mid-way by CLAIM_MS.
        const claim = `backup-claim:${resource.id}`;
        if (!(await deps.counters.take(claim, { limit: 1, windowMs: CLAIM_MS })).allowed) continue;
        await run(resource, "scheduled")
          .catch((error) => deps.logger.error({ err: error, resource: resource.id }, "a scheduled database backup failed"))
          .finally(() => deps.counters.reset(claim).catch(() => {}));
      }
      const expired = await db.backup.findMany({ where: { createdAt: { lt: new Date(now.getTime() - deps.config.backups.retentionDays * 24 * HOUR) } } });
      for (const backup of expired) await remove(backup).catch((error) => deps.logger.error({ err: error, backup: backup.id }, "removing an expired backup failed"));
    },

    /** Checks for due backups every `everyMs` (ten minutes by default) until stop(). */
    start(everyMs = 10 * 60_000): void {
      if (timer) return;
      timer = setInterval(() => void service.runScheduled().catch((error) => deps.logger.error({ err: error }, "scheduled backups failed")), everyMs);
      timer.unref();
    },

    async stop(): Promise<void> {
      clearInterval(timer);
      timer = undefined;
      await Promise.allSettled([...busy.values()]);
    },
  };
  return service;
}

export type BackupService = ReturnType<typeof createBackupService>;
