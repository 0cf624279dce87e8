// Prepared SQL for the few hot paths where Prisma's per-query cost (about 200 µs here, against under
// 10 µs for the same prepared statement; see bench/RESULTS.md) dominates a request: the OAuth token
// endpoint. Everything else goes through Prisma. One interface, a backend per engine chosen by the
// database URL; statements are written once, with `?` placeholders and double-quoted identifiers
// (valid on both engines), against the tables Prisma migrates.
//
// Statements run one at a time in autocommit: no transaction spans an await, so on SQLite this second
// connection never holds a lock that Prisma's connection, which blocks the thread while it waits, would
// wait for. When Prisma holds the write lock across awaits (its own transactions), a write here is
// retried after a short pause instead of blocking the thread.
import Database from "better-sqlite3";
import pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";

export interface Sql {
  /** The first row the query returns. */
  one<Row>(query: string, params: unknown[]): Promise<Row | undefined>;
  /** Runs a write; the number of rows it changed. */
  run(query: string, params: unknown[]): Promise<number>;
  /** A timestamp as the engine's DateTime columns hold it (Prisma's encoding). */
  timestamp(date: Date): string;
  close(): Promise<void>;
}

export function createSql(databaseUrl: string): Sql {
  return databaseUrl.startsWith("file:") ? sqliteSql(databaseUrl.slice("file:".length)) : postgresSql(databaseUrl);
}

const BUSY_RETRY_MS = 2;
const BUSY_GIVE_UP_MS = 10_000;

function sqliteSql(file: string): Sql {
  const db = new Database(file);
  db.pragma("busy_timeout = 0");
  db.pragma("foreign_keys = ON");
  const statements = new Map<string, Database.Statement>();
  const prepared = (query: string) => {
    let statement = statements.get(query);
    if (!statement) statements.set(query, (statement = db.prepare(query)));
    return statement;
  };
  const bind = (params: unknown[]) => params.map((p) => (typeof p === "boolean" ? Number(p) : p));

  return {
    async one<Row>(query: string, params: unknown[]) {
      return prepared(query).get(...bind(params)) as Row | undefined;
    },
    async run(query, params) {
      const statement = prepared(query);
      for (const started = Date.now(); ; await sleep(BUSY_RETRY_MS)) {
        try {
          return statement.run(...bind(params)).changes;
        } catch (error) {
          const busy = (error as { code?: string }).code === "SQLITE_BUSY";
          if (!busy || Date.now() - started > BUSY_GIVE_UP_MS) throw error;
        }
      }
    },
    // Prisma's better-sqlite3 adapter stores DateTime as ISO 8601 text with an explicit UTC offset.
    timestamp: (date) => date.toISOString().replace("Z", "+00:00"),
    async close() {
      db.close();
    },
  };
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`, … (the statements hold no literal question marks). */
function numbered(query: string): string {
  let n = 0;
  return query.replace(/\?/g, () => `$${++n}`);
}

function postgresSql(connectionString: string): Sql {
  const pool = new pg.Pool({ connectionString, max: 5 });
  const texts = new Map<string, string>();
  const text = (query: string) => {
    let converted = texts.get(query);
    if (converted === undefined) texts.set(query, (converted = numbered(query)));
    return converted;
  };
  return {
    async one<Row>(query: string, params: unknown[]) {
      const result = await pool.query(text(query), params);
      return result.rows[0] as Row | undefined;
    },
    async run(query, params) {
      return (await pool.query(text(query), params)).rowCount ?? 0;
    },
    // Prisma's TIMESTAMP(3) columns hold UTC without a zone: ISO text, whose `Z` PostgreSQL drops on the cast.
    timestamp: (date) => date.toISOString(),
    close: () => pool.end(),
  };
}
