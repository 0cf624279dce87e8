// The owner's apps, newest first, through prepared SQL (db/sql.ts): GET /api/apps and the dashboard's app list
// read them on every visit, and Prisma's per-query work (planning, row mapping) was most of that request's
// cost. Rows come back exactly as Prisma's `findMany` answers them (test/platform/app-reads.test.ts).
//
// Decoding the rows is still most of what is left (17 columns × every app, a string each), so the decoded
// first page is kept per owner together with the owner's list version, which database triggers bump on every
// insert, update and delete of their apps, whoever writes (migration 20261123121414_app_list_version). Each
// read asks the database for that version first: a copy is answered only when the database says it is
// current, so nothing here can be older than a fresh read would be.
import type { AppRow } from "../services/apps.ts";
import type { Sql } from "./sql.ts";

const COLUMNS = [
  "id", "slug", "name", "description", "status", "repo", "branch", "autoDeploy", "previews", "instances", "formation",
  "healthcheck", "githubToken", "previewOfId", "ownerId", "liveDeploymentId", "createdAt", "updatedAt", "sleepAfterMinutes", "sleepWorkers",
] as const satisfies readonly (keyof AppRow)[];

// Every column of the model, no more: a column added to App without this list fails to compile (below).
type Missing = Exclude<keyof AppRow, (typeof COLUMNS)[number]>;
const complete: Missing extends never ? true : Missing = true;
void complete;

const NEWEST_FIRST = `SELECT ${COLUMNS.map((c) => `"${c}"`).join(", ")} FROM "App" WHERE "ownerId" = ? ORDER BY "createdAt" DESC, "id" DESC LIMIT ?`;
const LIST_VERSION = `SELECT "version" FROM "AppListVersion" WHERE "ownerId" = ?`;

/** Owners whose first page is kept; the least recently read is dropped beyond this. */
const KEPT_OWNERS = 1000;

type RawApp = Omit<AppRow, "autoDeploy" | "previews" | "sleepWorkers" | "createdAt" | "updatedAt" | "healthcheck" | "formation"> & {
  healthcheck: AppRow["healthcheck"] | string;
  formation: AppRow["formation"] | string;
  autoDeploy: boolean | number;
  previews: boolean | number;
  sleepWorkers: boolean | number;
  createdAt: Date | string | number;
  updatedAt: Date | string | number;
};

interface KeptPage {
  /** The list version read before the rows: the rows are at least this new. */
  version: number;
  first: number;
  rows: readonly AppRow[];
}

/** SQLite holds DateTime as ISO text (with an offset, as Prisma writes it) and booleans as 0/1. */
function date(value: Date | string | number): Date {
  if (value instanceof Date || typeof value === "number") return new Date(value);
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(" ", "T")}Z`);
}

// Frozen: the same objects answer many requests, so a caller that changed one would change them all.
const decoded = (row: RawApp): AppRow =>
  Object.freeze({
    ...row,
    autoDeploy: Boolean(row.autoDeploy),
    previews: Boolean(row.previews),
    sleepWorkers: Boolean(row.sleepWorkers),
    // SQLite hands JSON back as its text; PostgreSQL's driver parses it.
    healthcheck: typeof row.healthcheck === "string" ? JSON.parse(row.healthcheck) : row.healthcheck,
    formation: typeof row.formation === "string" ? JSON.parse(row.formation) : row.formation,
    createdAt: date(row.createdAt),
    updatedAt: date(row.updatedAt),
  });

export function createAppReads(sql: Sql) {
  const kept = new Map<string, KeptPage>();

  function keep(ownerId: string, page: KeptPage) {
    kept.delete(ownerId);
    kept.set(ownerId, page);
    if (kept.size > KEPT_OWNERS) kept.delete(kept.keys().next().value!);
  }

  return {
    /** The owner's `first` newest apps (the first page). */
    async newest(ownerId: string, first: number): Promise<readonly AppRow[]> {
      // An owner who never had an app has no version row: 0, which no kept page carries.
      const version = (await sql.one<{ version: number }>(LIST_VERSION, [ownerId]))?.version ?? 0;
      const copy = kept.get(ownerId);
      if (copy && copy.version === version && copy.first === first) {
        keep(ownerId, copy);
        return copy.rows;
      }
      const rows = Object.freeze((await sql.all<RawApp>(NEWEST_FIRST, [ownerId, first])).map(decoded));
      if (version > 0) keep(ownerId, { version, first, rows });
      return rows;
    },
  };
}

export type AppReads = ReturnType<typeof createAppReads>;
