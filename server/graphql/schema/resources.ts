// Databases of apps (SQLite, or PostgreSQL when the platform provisions it) and their backups.
// REST: POST /api/apps/:slug/resources, DELETE /api/resources/:id, /api/resources/:id/backups[/…/restore];
// a backup's bytes: GET /api/resources/:id/backups/:backupId (http/backup-download.ts).
import { ConflictError, InvalidRequestError, NotFoundError, QuotaExceededError } from "../../errors.ts";
import type { Actor } from "../../services/resources.ts";
import { builder } from "../builder.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";
import type { Context } from "../context.ts";

const READ = { "read:apps": true } as const;
const WRITE = { "write:apps": true } as const;

const actorOf = (ctx: Context): Actor => ({ user: { id: ctx.viewer!.user.id, name: ctx.viewer!.user.name }, ip: ctx.client.ip });

export const Backup = builder.prismaObject("Backup", {
  description: "A copy of a database, kept BACKUP_RETENTION_DAYS; its bytes at GET /api/resources/:id/backups/:backupId",
  fields: (t) => ({
    id: t.exposeID("id"),
    size: t.expose("size", { type: "Bytes" }),
    trigger: t.exposeString("trigger", { description: "manual or scheduled" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

export const Resource = builder.prismaObject("Resource", {
  description: "A database provisioned for an app; its connection URL is the app's env var envKey",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type", { description: "postgres or sqlite" }),
    name: t.exposeString("name"),
    envKey: t.exposeString("envKey", { description: "DATABASE_URL for an app's first database, then DATABASE_URL_<NAME>" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    backups: t.field({
      type: [Backup],
      authScopes: READ,
      description: "Newest first, a page at a time",
      args: pageArgs(t.arg, "id"),
      complexity: pageCost,
      resolve: (resource, args, ctx) => ctx.services.backups.list(resource.id, pageOf(args)),
    }),
  }),
});

const CreateResourceInput = builder.inputType("CreateResourceInput", {
  fields: (t) => ({
    type: t.string({ required: false, description: "postgres or sqlite (default: postgres when the platform provisions it, else sqlite)" }),
    name: t.string({ required: false, description: "1–30 lowercase letters, digits or underscores; default main, then db2, db3…" }),
  }),
});

builder.queryFields((t) => ({
  databaseTypes: t.withAuth(READ).stringList({
    description: "The database types this platform provisions, the default first",
    resolve: (_root, _args, ctx) => ctx.services.resources.types(),
  }),
  resource: t.withAuth(READ).prismaField({
    type: "Resource",
    description: "One of your apps' databases (not_found for anyone else's)",
    args: { id: t.arg.id() },
    resolve: (_query, _root, { id }, ctx) => ctx.services.resources.mine(ctx.viewer.user.id, String(id)),
  }),
  revealResourceUrl: t.withAuth(READ).string({
    description: "The database's connection URL, with its password: shown on demand, to the app's owner only",
    args: { id: t.arg.id() },
    resolve: (_root, { id }, ctx) => ctx.services.resources.reveal(actorOf(ctx), String(id)),
  }),
  resourceBackups: t.withAuth(READ).field({
    type: [Backup],
    description: "A database's backups, newest first, a page at a time",
    args: { id: t.arg.id(), ...pageArgs(t.arg, "id") },
    // Priced at the largest page: the REST route's document is measured without its (required) id at boot,
    // and a cost function would need every argument's value.
    complexity: { field: 10, multiplier: 100 },
    resolve: (_root, { id, ...page }, ctx) => ctx.services.backups.listMine(ctx.viewer.user.id, String(id), pageOf(page)),
  }),
}));

builder.mutationFields((t) => ({
  createResource: t.withAuth(WRITE).prismaField({
    type: "Resource",
    description: "Provision a database for the app; its URL becomes the env var envKey and a running app restarts with it",
    args: { slug: t.arg.string(), input: t.arg({ type: CreateResourceInput, required: false }) },
    errors: { types: [InvalidRequestError, NotFoundError, ConflictError, QuotaExceededError] },
    resolve: (_query, _root, { slug, input }, ctx) => ctx.services.resources.create(actorOf(ctx), slug, input ?? {}),
  }),
  deleteResource: t.withAuth(WRITE).boolean({
    description: "Drop the database for real, with its backups; its env var is removed and a running app restarts",
    args: { id: t.arg.id() },
    resolve: (_root, { id }, ctx) => ctx.services.resources.remove(actorOf(ctx), String(id)),
  }),
  backupResource: t.withAuth(WRITE).prismaField({
    type: "Backup",
    description: "Back the database up now (conflict when an app removed or replaced its SQLite file)",
    args: { id: t.arg.id() },
    errors: { types: [NotFoundError, ConflictError] },
    resolve: (_query, _root, { id }, ctx) => ctx.services.backups.create(actorOf(ctx), String(id)),
  }),
  restoreBackup: t.withAuth(WRITE).prismaField({
    type: "Backup",
    description: "Put a backup's content back into the same database; the app is stopped meanwhile and started again",
    args: { id: t.arg.id({ description: "The database" }), backupId: t.arg.id() },
    errors: { types: [NotFoundError, ConflictError] },
    resolve: (_query, _root, { id, backupId }, ctx) => ctx.services.backups.restore(actorOf(ctx), String(id), String(backupId)),
  }),
}));
