// Build and runtime log lines: stamped when they arrive, written in batches, published after each batch is
// committed, read back by `after` (every line exactly once, in order), and streamed as history then live
// with no gap and no duplicate. An app that floods its output cannot stall the platform: past a high-water
// mark lines are counted and reported as dropped instead of queued without bound.
import type { Db } from "../../db/client.ts";
import type { Sql, Statement } from "../../db/sql.ts";
import type { PubSub } from "../../platform/pubsub/index.ts";
import { LogClock } from "./timestamps.ts";

export type LogKind = "build" | "runtime" | "run";
export type LogStreamName = "stdout" | "stderr" | "system";

export interface LogLineRecord {
  timestamp: string;
  kind: LogKind;
  stream: LogStreamName;
  deploymentId: string | null;
  /** Which instance of the app wrote it (1 for web.1, …); null for build lines and the platform's own. */
  instance?: number | null;
  /** The one-off run whose output it is (kind run). */
  runId?: string | null;
  /** The process that wrote it (web.1, worker.2, release, run.<id>, cron.<id>); null for the platform's own lines. */
  process?: string | null;
  line: string;
}

export interface LogQuery {
  kind: LogKind;
  after?: string | null;
  limit: number;
  deploymentId?: string | null;
  runId?: string | null;
}

export interface LogStoreOptions {
  /** Newest lines kept per app and kind. */
  retention: number;
  flushIntervalMs?: number;
  /** Lines waiting to be written past which new ones are dropped (and counted). */
  maxPending?: number;
  /** A batch that could not be written or published (the lines are lost; logging goes on). */
  onError?(error: unknown): void;
}

const BATCH_ROWS = 1000;
/** Rows per INSERT statement: a few fixed sizes, so that each is prepared once. */
const INSERT_SIZES = [100, 10, 1];
const COLUMNS = ["appId", "deploymentId", "kind", "stream", "line", "timestamp", "instance", "runId", "process"] as const;

/** One INSERT per group of rows: prepared SQL, since Prisma's per-row cost showed at 10,000 lines a second. */
function insertStatements(rows: (LogLineRecord & { appId: string })[]): Statement[] {
  const statements: Statement[] = [];
  let at = 0;
  for (const size of INSERT_SIZES) {
    const values = `(${COLUMNS.map(() => "?").join(",")})`;
    const query = `INSERT INTO "LogLine" (${COLUMNS.map((c) => `"${c}"`).join(",")}) VALUES ${Array(size).fill(values).join(",")}`;
    for (; rows.length - at >= size; at += size) {
      statements.push({ query, params: rows.slice(at, at + size).flatMap((row) => COLUMNS.map((c) => row[c] ?? null)) });
    }
  }
  return statements;
}
/** Old lines are deleted after this many new ones (or `retention`, if fewer): at most twice the retention stays. */
const PRUNE_EVERY = 1000;
const topic = (appId: string) => `logs:${appId}`;

export class LogStore {
  private pending: (LogLineRecord & { appId: string })[] = [];
  private dropped = new Map<string, { count: number; kind: LogKind; deploymentId: string | null }>();
  /** Every line dropped since the platform started (GET /metrics). */
  droppedTotal = 0;
  private sincePrune = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly clock = new LogClock();
  private readonly resumed = new Set<string>();
  private readonly flushIntervalMs: number;
  private readonly maxPending: number;
  private readonly taps: Array<(appId: string, lines: LogLineRecord[]) => void> = [];

  constructor(
    private readonly db: Db,
    private readonly sql: Sql,
    private readonly pubsub: PubSub,
    private readonly options: LogStoreOptions,
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 25;
    this.maxPending = options.maxPending ?? 100_000;
  }

  /** LISTENER sees each committed batch of an app's lines (log drains); it must not throw nor wait. */
  tap(listener: (appId: string, lines: LogLineRecord[]) => void): void {
    this.taps.push(listener);
  }

  /** Continues an app's timestamps after its newest stored line (call before its first append after boot). */
  async resume(appId: string): Promise<void> {
    if (this.resumed.has(appId)) return;
    this.resumed.add(appId);
    const newest = await this.db.logLine.findFirst({ where: { appId }, orderBy: { timestamp: "desc" }, select: { timestamp: true } });
    this.clock.resume(appId, newest?.timestamp ?? null);
  }

  append(appId: string, entry: Omit<LogLineRecord, "timestamp">): void {
    if (this.pending.length >= this.maxPending) {
      const drop = this.dropped.get(appId) ?? { count: 0, kind: entry.kind, deploymentId: entry.deploymentId };
      drop.count += 1;
      this.dropped.set(appId, drop);
      this.droppedTotal += 1;
      return;
    }
    this.pending.push({ appId, ...entry, timestamp: this.clock.next(appId) });
    this.timer ??= setTimeout(() => void this.flush(), this.flushIntervalMs);
  }

  /** Writes everything appended so far; resolves once it is committed and published (or reported as failed). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // A failed batch must not stop the flushes after it, nor reject into a timer nobody awaits.
    this.flushing = this.flushing.then(() => this.writePending()).catch((error) => this.options.onError?.(error));
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    this.reportDropped();
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, BATCH_ROWS);
      try {
        await this.sql.chain(insertStatements(batch));
      } catch {
        // The app (and its lines) may have been deleted meanwhile: keep the lines of apps that still exist.
        const live = new Set((await this.db.app.findMany({ where: { id: { in: [...new Set(batch.map((l) => l.appId))] } }, select: { id: true } })).map((a) => a.id));
        const kept = batch.filter((l) => live.has(l.appId));
        if (kept.length) await this.sql.chain(insertStatements(kept));
        batch.length = 0;
        batch.push(...kept);
      }
      const byApp = new Map<string, LogLineRecord[]>();
      for (const { appId, ...line } of batch) {
        const lines = byApp.get(appId) ?? [];
        lines.push(line);
        byApp.set(appId, lines);
      }
      for (const [appId, lines] of byApp) {
        await this.pubsub.publish(topic(appId), lines);
        for (const tap of this.taps) tap(appId, lines);
        await this.pruneLater(appId, lines.length);
      }
    }
  }

  private reportDropped(): void {
    for (const [appId, drop] of this.dropped) {
      const line = `Slipway dropped ${drop.count} log lines: the app wrote faster than they could be stored.`;
      this.pending.push({ appId, kind: drop.kind, stream: "system", deploymentId: drop.deploymentId, line, timestamp: this.clock.next(appId) });
    }
    this.dropped.clear();
  }

  private async pruneLater(appId: string, added: number): Promise<void> {
    const count = (this.sincePrune.get(appId) ?? 0) + added;
    if (count < Math.min(PRUNE_EVERY, this.options.retention)) return void this.sincePrune.set(appId, count);
    this.sincePrune.set(appId, 0);
    for (const kind of ["build", "runtime", "run"] as const) {
      const edge = await this.db.logLine.findFirst({
        where: { appId, kind },
        orderBy: { timestamp: "desc" },
        skip: this.options.retention,
        select: { timestamp: true },
      });
      if (edge) await this.db.logLine.deleteMany({ where: { appId, kind, timestamp: { lte: edge.timestamp } } });
    }
  }

  /** Without `after`, the newest `limit` lines; with it, the `limit` lines strictly after it. Oldest first. */
  async query(appId: string, q: LogQuery): Promise<LogLineRecord[]> {
    const where = { appId, kind: q.kind, ...(q.deploymentId ? { deploymentId: q.deploymentId } : {}), ...(q.runId ? { runId: q.runId } : {}) };
    const select = { timestamp: true, kind: true, stream: true, deploymentId: true, instance: true, runId: true, process: true, line: true } as const;
    if (q.after) {
      return this.db.logLine.findMany({ where: { ...where, timestamp: { gt: q.after } }, orderBy: { timestamp: "asc" }, take: q.limit, select });
    }
    const newest = await this.db.logLine.findMany({ where, orderBy: { timestamp: "desc" }, take: q.limit, select });
    return newest.reverse();
  }

  /**
   * History (as `query` answers it), then every new line as it is committed, in batches. Subscribes before
   * reading history and skips what history already gave, so nothing is missed or repeated.
   */
  /** `signal`: aborting ends the watch even while it waits for lines (a generator's return() would wait for them). */
  async *watch(appId: string, q: LogQuery, signal?: AbortSignal): AsyncGenerator<LogLineRecord[]> {
    const live = await this.pubsub.subscribe(topic(appId));
    signal?.addEventListener("abort", () => void live.return?.(), { once: true });
    try {
      let last = q.after ?? "";
      const matches = (l: LogLineRecord) => l.kind === q.kind && (!q.deploymentId || l.deploymentId === q.deploymentId) && (!q.runId || l.runId === q.runId);
      for (let page = await this.query(appId, q); page.length > 0; page = await this.query(appId, { ...q, after: last })) {
        last = page[page.length - 1].timestamp;
        yield page;
        if (page.length < q.limit) break;
      }
      for await (const payload of live) {
        const lines = (payload as LogLineRecord[]).filter((l) => l.timestamp > last && matches(l));
        if (lines.length === 0) continue;
        last = lines[lines.length - 1].timestamp;
        yield lines;
      }
    } finally {
      await live.return?.();
    }
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
