// An app's databases ("resources"): provision one (SQLite, or PostgreSQL when POSTGRES_PROVISION_URL is set),
// list, reveal its connection URL to the owner, delete it. Its URL is the app's env var `envKey` (DATABASE_URL
// for the first, then DATABASE_URL_<NAME>), so a running app restarts with it; deleting drops the database for
// real and removes the variable. Another user's database is "not found", never "forbidden".
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client.ts";
import { ConflictError, InvalidRequestError, NotFoundError, QuotaExceededError } from "../errors.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import type { DatabaseType, Provisioners } from "../platform/databases/index.ts";
import type { AccountService } from "./accounts.ts";
import type { AppRow, AppService } from "./apps.ts";
import type { AuditService } from "./audit.ts";
import type { Sealer } from "./sealed.ts";
import { validate } from "./validation.ts";

export interface CreateResourceInput {
  type?: string | null;
  name?: string | null;
}

/** Who acts, for the audit log. */
export interface Actor {
  user: { id: string; name: string };
  ip?: string | null;
}

export type ResourceRow = Awaited<ReturnType<Db["resource"]["findUniqueOrThrow"]>>;

const NAME = /^[a-z][a-z0-9_]{0,29}$/;
const TYPES = ["postgres", "sqlite"];

export function createResourceService(deps: {
  db: Db;
  engine: ClusterEngine;
  apps: AppService;
  accounts: AccountService;
  provisioners: Provisioners;
  sealer: Sealer;
  audit: AuditService;
}) {
  const { db, engine, provisioners, sealer } = deps;
  const bound = (r: { id: string; appId: string }) => `resource:${r.appId}:${r.id}`;

  async function mine(ownerId: string, id: string): Promise<ResourceRow & { app: AppRow }> {
    const resource = typeof id === "string" ? await db.resource.findUnique({ where: { id }, include: { app: true } }) : null;
    if (!resource || resource.app.ownerId !== ownerId) throw new NotFoundError("You have no database with this id.");
    return resource;
  }

  function urlOf(resource: ResourceRow): string {
    const url = sealer.open(bound(resource), resource.connectionSecret);
    if (url === null) throw new Error(`the connection URL of database ${resource.id} does not decrypt (was DATA_DIR/secrets replaced?)`);
    return url;
  }

  function provisionerOf(resource: ResourceRow) {
    const provisioner = provisioners.of(resource.type as DatabaseType);
    if (!provisioner) throw new Error(`database ${resource.id} is of type ${resource.type}, which this platform no longer provides`);
    return provisioner;
  }

  /** Drops the database, then its row and env var (backups go with it, through the hook). */
  async function destroy(resource: ResourceRow, app: { id: string; slug: string }, restart: boolean): Promise<void> {
    for (const hook of beforeDelete) await hook(resource);
    await provisionerOf(resource).drop({ id: resource.id, appId: resource.appId });
    await db.resource.delete({ where: { id: resource.id } }).catch(() => {}); // gone with its app already
    const { count } = await db.envVar.deleteMany({ where: { appId: app.id, key: resource.envKey } });
    if (restart && count) await engine.envChanged(app);
  }

  const beforeDelete: ((resource: ResourceRow) => Promise<void>)[] = [];
  /** One creation at a time per owner on this instance, so that concurrent requests never overshoot the quota. */
  const creating = new Map<string, Promise<unknown>>();
  function oneAtATime<T>(ownerId: string, work: () => Promise<T>): Promise<T> {
    const next = (creating.get(ownerId) ?? Promise.resolve()).catch(() => {}).then(work);
    creating.set(ownerId, next);
    void next.finally(() => creating.get(ownerId) === next && creating.delete(ownerId)).catch(() => {});
    return next;
  }

  async function create(actor: Actor, slug: string, input: CreateResourceInput): Promise<ResourceRow> {
    const app = await deps.apps.mine(actor.user.id, slug);
    validate(input as Record<string, unknown>, {
      type: (v) => (v != null && (typeof v !== "string" || !TYPES.includes(v)) ? 'Choose "postgres" or "sqlite".' : null),
      name: (v) => (v != null && (typeof v !== "string" || !NAME.test(v)) ? "Use 1 to 30 lowercase letters, digits or underscores, starting with a letter." : null),
    });
    const type = (input.type ?? provisioners.defaultType) as DatabaseType;
    const provisioner = provisioners.of(type);
    if (!provisioner) {
      throw new InvalidRequestError("PostgreSQL databases are not available on this platform (POSTGRES_PROVISION_URL is not set): choose sqlite.", {
        type: 'Choose "sqlite": PostgreSQL is not configured here.',
      });
    }
    const quota = await deps.accounts.quotaOf(actor.user.id);
    if (quota.usage.databases >= quota.maxDatabases) {
      throw new QuotaExceededError(`You have ${quota.usage.databases} of ${quota.maxDatabases} databases allowed. Delete one or ask for a higher limit.`);
    }
    const existing = await db.resource.findMany({ where: { appId: app.id } });
    const name = input.name ?? nextName(existing.map((r) => r.name));
    if (existing.some((r) => r.name === name)) throw new ConflictError(`This app already has a database named "${name}".`, { name: "Choose another name." });
    const taken = new Set([...existing.map((r) => r.envKey), ...(await db.envVar.findMany({ where: { appId: app.id }, select: { key: true } })).map((v) => v.key)]);
    const envKey = !taken.has("DATABASE_URL") ? "DATABASE_URL" : `DATABASE_URL_${name.toUpperCase()}`;
    if (taken.has(envKey)) throw new ConflictError(`The env var ${envKey} is already set: remove it, or give the database another name.`, { name: `${envKey} is taken.` });

    const ref = { id: `r${randomBytes(12).toString("hex")}`, appId: app.id };
    const url = await provisioner.create(ref);
    let resource: ResourceRow;
    try {
      resource = await db.$transaction(async (tx) => {
        const row = await tx.resource.create({ data: { id: ref.id, appId: app.id, type, name, envKey, connectionSecret: sealer.seal(bound(ref), url) } });
        await tx.envVar.create({ data: { appId: app.id, key: envKey, value: url } });
        return row;
      });
    } catch (error) {
      await provisioner.drop(ref).catch(() => {});
      throw error;
    }
    await engine.envChanged(app);
    await deps.audit.record({ actor: actor.user, action: "resource.create", target: { type: "resource", id: resource.id }, details: { app: app.slug, type, name, envKey }, ip: actor.ip });
    return resource;
  }


  return {
    mine,
    urlOf,
    provisionerOf,
    /** Called before a database is deleted (its backups are removed from storage). */
    onDelete(hook: (resource: ResourceRow) => Promise<void>) {
      beforeDelete.push(hook);
    },

    /** What this platform offers: the default type first. */
    types: (): DatabaseType[] => (provisioners.of("postgres") ? ["postgres", "sqlite"] : ["sqlite"]),

    list: (appId: string) => db.resource.findMany({ where: { appId }, orderBy: { createdAt: "asc" } }),

    create: (actor: Actor, slug: string, input: CreateResourceInput): Promise<ResourceRow> => oneAtATime(actor.user.id, () => create(actor, slug, input)),

    /** The connection URL, for its owner only (recorded in the audit log: it holds the password). */
    async reveal(actor: Actor, id: string): Promise<string> {
      const resource = await mine(actor.user.id, id);
      await deps.audit.record({ actor: actor.user, action: "resource.reveal_url", target: { type: "resource", id }, details: { app: resource.app.slug }, ip: actor.ip });
      return urlOf(resource);
    },

    async remove(actor: Actor, id: string): Promise<boolean> {
      const resource = await mine(actor.user.id, id);
      await destroy(resource, resource.app, true);
      await deps.audit.record({ actor: actor.user, action: "resource.delete", target: { type: "resource", id }, details: { app: resource.app.slug, type: resource.type, name: resource.name }, ip: actor.ip });
      return true;
    },

    /** Every database of an app that is being deleted (its processes are already stopped). */
    async removeAllOf(app: { id: string; slug: string }): Promise<void> {
      for (const resource of await db.resource.findMany({ where: { appId: app.id } })) await destroy(resource, app, false);
    },
  };
}

function nextName(names: string[]): string {
  if (!names.includes("main")) return "main";
  for (let n = 2; ; n++) if (!names.includes(`db${n}`)) return `db${n}`;
}

export type ResourceService = ReturnType<typeof createResourceService>;
