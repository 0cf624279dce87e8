// db:create, db:list, db:delete, db:backup, db:backups, db:restore, db:url: an app's databases and backups.
// A database is named by its name among the app's (--app or slipway.json) or by its id.
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import {
  BackupDatabaseMutation,
  BackupsQuery,
  CreateDatabaseMutation,
  DatabaseQuery,
  DatabasesQuery,
  DeleteDatabaseMutation,
  RestoreBackupMutation,
  RevealDatabaseUrlQuery,
} from "../documents.ts";
import { findLink, resolveApp } from "../link.ts";
import { CliError, color, formatBytes, print, printJson, printTable } from "../output.ts";

type Options = GlobalOptions & { json?: boolean; app?: string; yes?: boolean };

interface Database {
  id: string;
  type: string;
  name: string;
  envKey: string;
  createdAt: string;
}

/** The database `ref` names: a name among the app's databases, else an id of one of yours. */
async function findDatabase(api: Api, ref: string, appOption: string | undefined): Promise<Database> {
  const slug = appOption ?? findLink()?.app;
  if (slug) {
    const { app } = await api.graphql(DatabasesQuery, { slug });
    const found = app.resources.find((r) => r.name === ref) ?? app.resources.find((r) => r.id === ref);
    if (found) return found;
  }
  try {
    return (await api.graphql(DatabaseQuery, { id: ref })).resource;
  } catch (error) {
    if (error instanceof CliError && error.code === "not_found") {
      throw new CliError(slug ? `${slug} has no database named ${ref}, and no database of yours has that id (see \`slipway db:list\`).` : `No database of yours has the id ${ref} (give --app <slug> to name it by its name).`);
    }
    throw error;
  }
}

/** Asks to type `expected` unless --yes; off a terminal, --yes is required. */
async function confirm(options: Options, question: string, expected: string, refused: string) {
  if (options.yes) return;
  if (!process.stdin.isTTY) throw new CliError(`${refused} without confirmation: pass --yes.`);
  const { text, isCancel } = await import("@clack/prompts");
  const typed = await text({ message: `${question} Type ${expected} to confirm:` });
  if (isCancel(typed) || typed !== expected) throw new CliError(`Nothing done: you did not type ${expected}.`);
}

export async function create(options: Options & { type?: string; name?: string }) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const input = { ...(options.type ? { type: options.type } : {}), ...(options.name ? { name: options.name } : {}) };
  const db = unwrap((await api.graphql(CreateDatabaseMutation, { slug, input })).createResource);
  if (!("id" in db)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(db);
  print(`Created the ${db.type} database ${color.bold(db.name)} (${db.id}) for ${slug}.`);
  print(`Its URL is the env var ${color.bold(db.envKey)}; the app restarts with it if it is running.`);
}

export async function list(options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const { app } = await api.graphql(DatabasesQuery, { slug });
  if (options.json) return printJson(app.resources);
  if (!app.resources.length) return print(`${slug} has no databases. Create one with \`slipway db:create\`.`);
  printTable(
    ["NAME", "TYPE", "ENV VAR", "ID", "CREATED"],
    app.resources.map((r) => [r.name, r.type, r.envKey, r.id, r.createdAt]),
  );
}

export async function remove(ref: string, options: Options) {
  const api = Api.connect(options);
  const db = await findDatabase(api, ref, options.app);
  await confirm(options, `This drops the database ${db.name} (${db.id}) with its data and backups, and removes $${db.envKey}.`, db.name, `Refusing to delete ${db.name}`);
  const { deleteResource } = await api.graphql(DeleteDatabaseMutation, { id: db.id });
  if (!deleteResource) throw new CliError(`No database ${ref} among yours.`);
  print(`Deleted the database ${db.name} (${db.id}).`);
}

export async function backup(ref: string, options: Options) {
  const api = Api.connect(options);
  const db = await findDatabase(api, ref, options.app);
  const made = unwrap((await api.graphql(BackupDatabaseMutation, { id: db.id })).backupResource);
  if (!("id" in made)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(made);
  print(`Backed up ${db.name}: backup ${color.bold(made.id)} (${formatBytes(made.size)}).`);
}

export async function backups(ref: string, options: Options) {
  const api = Api.connect(options);
  const db = await findDatabase(api, ref, options.app);
  const { resourceBackups } = await api.graphql(BackupsQuery, { id: db.id });
  if (options.json) return printJson(resourceBackups);
  if (!resourceBackups.length) return print(`${db.name} has no backups yet. Make one with \`slipway db:backup ${db.name}\`.`);
  printTable(
    ["BACKUP", "SIZE", "TRIGGER", "CREATED"],
    resourceBackups.map((b) => [b.id, formatBytes(b.size), b.trigger, b.createdAt]),
  );
}

export async function restore(ref: string, backupId: string, options: Options) {
  const api = Api.connect(options);
  const db = await findDatabase(api, ref, options.app);
  await confirm(options, `This replaces everything in ${db.name} with backup ${backupId}; the app is stopped meanwhile.`, db.name, `Refusing to restore ${db.name}`);
  const restored = unwrap((await api.graphql(RestoreBackupMutation, { id: db.id, backupId })).restoreBackup);
  if (!("id" in restored)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(restored);
  print(`Restored ${db.name} from backup ${restored.id} (${restored.createdAt}).`);
}

export async function url(ref: string, options: Options) {
  const api = Api.connect(options);
  const db = await findDatabase(api, ref, options.app);
  const { revealResourceUrl } = await api.graphql(RevealDatabaseUrlQuery, { id: db.id });
  print(revealResourceUrl);
}
