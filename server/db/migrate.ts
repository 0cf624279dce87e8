// Applies the committed migrations (prisma/<provider>/migrations/*/migration.sql) at boot, recording
// them in a `_prisma_migrations` table compatible with Prisma's, so `prisma/scripts/migrate.mjs`
// (the wasm schema engine, used to create migrations and check drift) sees the same history.
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { projectRoot } from "../platform/paths.ts";

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(provider: "sqlite" | "postgresql"): Migration[] {
  const dir = path.join(projectRoot, "prisma", provider, "migrations");
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export async function migrate(databaseUrl: string): Promise<string[]> {
  return databaseUrl.startsWith("file:") ? migrateSqlite(databaseUrl) : migratePostgres(databaseUrl);
}

function sqliteFile(databaseUrl: string): string {
  return path.resolve(databaseUrl.replace(/^file:/, "").replace(/\?.*$/, ""));
}

function migrateSqlite(databaseUrl: string): string[] {
  const file = sqliteFile(databaseUrl);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
    const applied = new Set(
      db.prepare(`SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`).pluck().all() as string[],
    );
    const record = db.prepare(
      `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`,
    );
    const done: string[] = [];
    for (const m of readMigrations("sqlite").filter((m) => !applied.has(m.name))) {
      db.transaction(() => {
        const started = Date.now();
        db.exec(m.sql);
        record.run(randomUUID(), m.checksum, Date.now(), m.name, started);
      })();
      done.push(m.name);
    }
    return done;
  } finally {
    db.close();
  }
}

async function migratePostgres(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Several instances may boot at once: one applies, the others wait and then find nothing to do.
    await client.query("SELECT pg_advisory_lock(72707369)");
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const { rows } = await client.query(
      `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Set(rows.map((r) => r.migration_name as string));
    const done: string[] = [];
    for (const m of readMigrations("postgresql").filter((m) => !applied.has(m.name))) {
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${m.name} failed: ${(error as Error).message}`, { cause: error });
      }
      done.push(m.name);
    }
    return done;
  } finally {
    await client.query("SELECT pg_advisory_unlock(72707369)").catch(() => {});
    await client.end();
  }
}
