import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrate, readMigrations } from "../../server/db/migrate.ts";

describe("boot migrations", () => {
  it("apply every committed migration once, recorded like Prisma's own history", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-migrate-"));
    const url = `file:${path.join(dir, "nested", "db.sqlite")}`;
    const names = readMigrations("sqlite").map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);
    expect(await migrate(url)).toEqual(names);
    expect(await migrate(url)).toEqual([]);
    const db = new Database(path.join(dir, "nested", "db.sqlite"));
    const rows = db.prepare(`SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name`).all() as { migration_name: string; checksum: string; finished_at: number }[];
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.checksum) && r.finished_at)).toBe(true);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE type='table' AND name='User'`).get()).toBeDefined();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
