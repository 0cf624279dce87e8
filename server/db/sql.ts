// Prepared SQL for the few hot paths where Prisma's per-query cost (about 200 µs here, against under
// 10 µs for the same prepared statement; see bench/RESULTS.md) dominates: the OAuth token endpoint, and
// the inserts of app log lines (thousands a second). Everything else goes through Prisma. One interface, a backend per engine chosen by the
// database URL; statements are written once, with `?` placeholders and double-quoted identifiers
// (valid on both engines), against the tables Prisma migrates.
//
// On SQLite no transaction here spans an await (a chain of writes runs synchronously), so this second
// connection never holds a lock across other work: Prisma's connection, which blocks the thread while it
// waits for a lock, never waits for this one. When Prisma holds the write lock across awaits (its own
// transactions), a write here is retried after a short pause instead of blocking the thread.
//
// SQLite commits wait for the disk (synchronous=FULL) on the event loop's thread, so chains requested in
// the same turn of the event loop share one transaction and one commit (group commit). Each chain runs in
// its own savepoint: one that fails is rolled back alone (or, if its error ended the transaction, the others
// are committed one by one), and every caller hears only after the commit.
import Database from "better-sqlite3";
import pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";

export interface Sql {
  /** The first row the query returns. */
  one<Row>(query: string, params: unknown[]): Promise<Row | undefined>;
  /** Every row the query returns. */
  all<Row>(query: string, params: unknown[]): Promise<Row[]>;
  /**
   * Runs writes in one transaction, each only if the one before it changed a row (a conditional update,
   * then what it allows). Returns how many changed rows: fewer than given means the chain stopped there.
   * Chains requested at the same time may commit in any order: make each one's writes conditional.
   */
  chain(statements: Statement[]): Promise<number>;
  /** A timestamp as the engine's DateTime columns hold it (Prisma's encoding). */
  timestamp(date: Date): string;
  close(): Promise<void>;
}

export interface Statement {
  query: string;
  params: unknown[];
}

export function createSql(databaseUrl: string): Sql {
  return databaseUrl.startsWith("file:") ? sqliteSql(databaseUrl.slice("file:".length)) : postgresSql(databaseUrl);
}

const BUSY_RETRY_MS = 2;
const BUSY_GIVE_UP_MS = 10_000;

interface PendingChain {
  statements: Statement[];
  resolve(changed: number): void;
  reject(error: unknown): void;
}
type ChainOutcome = { changed: number } | { error: unknown };

const isBusy = (error: unknown) => (error as { code?: string }).code === "SQLITE_BUSY";

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
  const runChain = db.transaction((statements: Statement[]) => {
    let changed = 0;
    for (const { query, params } of statements) {
      if (prepared(query).run(...bind(params)).changes === 0) break;
      changed += 1;
    }
    return changed;
  });
  // Nested in runGroup, each runChain is a savepoint: a chain that throws is rolled back on its own.
  const runGroup = db.transaction((group: PendingChain[]) =>
    group.map((pending): ChainOutcome => {
      try {
        return { changed: runChain(pending.statements) };
      } catch (error) {
        // Some errors (disk full, I/O, RAISE(ROLLBACK)) end the whole transaction, not just the savepoint:
        // the rest of the group must not run outside it.
        if (!db.inTransaction) throw error;
        return { error };
      }
    }),
  );

  async function retryingWhileBusy<T>(attempt: () => T): Promise<T> {
    for (const started = Date.now(); ; await sleep(BUSY_RETRY_MS)) {
      try {
        return attempt();
      } catch (error) {
        if (!isBusy(error) || Date.now() - started > BUSY_GIVE_UP_MS) throw error;
      }
    }
  }

  let waiting: PendingChain[] = [];
  const commits = new Set<Promise<void>>();

  async function commit(group: PendingChain[]): Promise<void> {
    try {
      // IMMEDIATE: the write lock is taken at BEGIN, so a busy database refuses before anything ran.
      const outcomes = await retryingWhileBusy(() => runGroup.immediate(group));
      outcomes.forEach((outcome, i) => ("error" in outcome ? group[i].reject(outcome.error) : group[i].resolve(outcome.changed)));
    } catch (error) {
      if (group.length === 1 || isBusy(error)) return group.forEach((pending) => pending.reject(error));
      // The whole group was rolled back: run each chain on its own, so that only the failing one fails.
      for (const pending of group) await commit([pending]);
    }
  }

  function commitWaiting() {
    const group = waiting;
    waiting = [];
    const done = commit(group).finally(() => commits.delete(done));
    commits.add(done);
  }

  return {
    async one<Row>(query: string, params: unknown[]) {
      return prepared(query).get(...bind(params)) as Row | undefined;
    },
    async all<Row>(query: string, params: unknown[]) {
      return prepared(query).all(...bind(params)) as Row[];
    },
    chain: (statements) =>
      new Promise<number>((resolve, reject) => {
        if (waiting.length === 0) setImmediate(commitWaiting);
        waiting.push({ statements, resolve, reject });
      }),
    // Prisma's better-sqlite3 adapter stores DateTime as ISO 8601 text with an explicit UTC offset.
    timestamp: (date) => date.toISOString().replace("Z", "+00:00"),
    async close() {
      // Writes already requested are committed (or refused) first.
      while (waiting.length > 0 || commits.size > 0) await Promise.all([...commits, new Promise(setImmediate)]);
      db.close();
    },
  };
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`, … (the statements hold no literal question marks). */
function numbered(query: string): string {
  let n = 0;
  return query.replace(/\?/g, () => `$${++n}`);
}

/** PostgreSQL's `timestamp without time zone`. */
const TIMESTAMP = 1114;
const parseUtc = (text: string) => new Date(`${text.replace(" ", "T")}Z`);

function postgresSql(connectionString: string): Sql {
  // Prisma's TIMESTAMP(3) columns hold UTC without a zone: read as UTC, whatever the process's time zone.
  const types = { getTypeParser: (oid: number, format?: "text" | "binary") => (oid === TIMESTAMP ? parseUtc : pg.types.getTypeParser(oid, format)) };
  const pool = new pg.Pool({ connectionString, max: 5, types: types as pg.CustomTypesConfig });
  // An idle connection dropped by the server (a restart, pg_terminate_backend): without a listener the pool's error
  // event would crash the process. The pool discards that client, and the next query opens another.
  pool.on("error", () => {});
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
    async all<Row>(query: string, params: unknown[]) {
      return (await pool.query(text(query), params)).rows as Row[];
    },
    async chain(statements) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        let changed = 0;
        for (const { query, params } of statements) {
          if (!(await client.query(text(query), params)).rowCount) break;
          changed += 1;
        }
        await client.query("COMMIT");
        return changed;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    // Prisma's TIMESTAMP(3) columns hold UTC without a zone: ISO text, whose `Z` PostgreSQL drops on the cast.
    timestamp: (date) => date.toISOString(),
    close: () => pool.end(),
  };
}
