// The owner's apps, newest first, through prepared SQL (db/sql.ts): GET /api/apps and the dashboard's app list
// read them on every visit, and Prisma's per-query work (planning, row mapping) was most of that request's
// cost. Rows come back exactly as Prisma's `findMany` answers them (test/platform/app-reads.test.ts).
import type { AppRow } from "../services/apps.ts";
import type { Sql } from "./sql.ts";

const COLUMNS = [
  "id", "slug", "name", "description", "status", "repo", "branch", "autoDeploy", "previews", "instances",
  "githubToken", "previewOfId", "ownerId", "liveDeploymentId", "createdAt", "updatedAt",
] as const satisfies readonly (keyof AppRow)[];

// Every column of the model, no more: a column added to App without this list fails to compile (below).
type Missing = Exclude<keyof AppRow, (typeof COLUMNS)[number]>;
const complete: Missing extends never ? true : Missing = true;
void complete;

const NEWEST_FIRST = `SELECT ${COLUMNS.map((c) => `"${c}"`).join(", ")} FROM "App" WHERE "ownerId" = ? ORDER BY "createdAt" DESC, "id" DESC LIMIT ?`;

type RawApp = Omit<AppRow, "autoDeploy" | "previews" | "createdAt" | "updatedAt"> & {
  autoDeploy: boolean | number;
  previews: boolean | number;
  createdAt: Date | string | number;
  updatedAt: Date | string | number;
};

/** SQLite holds DateTime as ISO text (with an offset, as Prisma writes it) and booleans as 0/1. */
function date(value: Date | string | number): Date {
  if (value instanceof Date || typeof value === "number") return new Date(value);
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(" ", "T")}Z`);
}

export function createAppReads(sql: Sql) {
  return {
    /** The owner's `first` newest apps (the first page). */
    async newest(ownerId: string, first: number): Promise<AppRow[]> {
      const rows = await sql.all<RawApp>(NEWEST_FIRST, [ownerId, first]);
      return rows.map((row) => ({
        ...row,
        autoDeploy: Boolean(row.autoDeploy),
        previews: Boolean(row.previews),
        createdAt: date(row.createdAt),
        updatedAt: date(row.updatedAt),
      }));
    },
  };
}

export type AppReads = ReturnType<typeof createAppReads>;
