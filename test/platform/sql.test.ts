// The SQLite side of the prepared-SQL executor (server/db/sql.ts) on its own database file: writes requested
// together share one transaction, and no failure of one, however it fails, loses or half-writes the others.
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSql, type Sql } from "../../server/db/sql.ts";

let dir: string;
let file: string;
let sql: Sql;

const insert = (value: string) => ({ query: `INSERT INTO "Item" ("value") VALUES (?)`, params: [value] });
const stored = () => new Database(file, { readonly: true }).prepare(`SELECT "value" FROM "Item" ORDER BY "value"`).pluck().all();

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-sql-"));
  file = path.join(dir, "test.db");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec(`CREATE TABLE "Item" ("value" TEXT NOT NULL UNIQUE)`);
  // Inserting "abort" ends the whole transaction, as a full disk or an I/O error would.
  db.exec(`CREATE TRIGGER "abort" BEFORE INSERT ON "Item" WHEN NEW."value" = 'abort' BEGIN SELECT RAISE(ROLLBACK, 'aborted'); END`);
  db.close();
  sql = createSql(`file:${file}`);
});

afterEach(async () => {
  await sql.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("SQLite group commit", () => {
  it("rolls back a chain that fails on its own and commits the others", async () => {
    const outcomes = await Promise.allSettled([sql.chain([insert("a")]), sql.chain([insert("b"), insert("a")]), sql.chain([insert("c")])]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(stored()).toEqual(["a", "c"]);
  });

  it("commits the others one by one when a chain's error ends the whole transaction, and answers each truthfully", async () => {
    const outcomes = await Promise.allSettled([sql.chain([insert("a")]), sql.chain([insert("b"), insert("abort")]), sql.chain([insert("c")])]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(stored()).toEqual(["a", "c"]);
  });

  it("commits writes requested just before close", async () => {
    const pending = sql.chain([insert("late")]);
    await sql.close();
    await expect(pending).resolves.toBe(1);
    expect(stored()).toEqual(["late"]);
    sql = createSql(`file:${file}`); // for afterEach
  });
});
