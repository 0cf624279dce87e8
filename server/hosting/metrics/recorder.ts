// Every SAMPLE_MS on the injected clock, one round: the leader samples its apps' instances (usage.ts); once a minute
// is over, its rows are written: the leader's AppUsageMinute rows, and on every instance the AppRequestMinute rows of
// what its own router answered (requests.ts), under this process's source. Rows past the retention are deleted
// hourly. Tests run rounds themselves (round()) and move the clock, instead of waiting.
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import type { SampledInstance } from "../engine.ts";
import { encodeHistogram } from "./latency.ts";
import type { RequestCounts } from "./requests.ts";
import { UsageMinute } from "./usage.ts";

export const SAMPLE_MS = 10_000;
export const MINUTE_MS = 60_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface MetricsRecorderDeps {
  db: Db;
  clock: Clock;
  /** What this process's router answered. */
  counts: RequestCounts;
  /** This process in AppRequestMinute.source: unique per boot, so that rows of several processes never collide. */
  source: string;
  /** The running instances to sample when this instance leads (it runs the engine), else null. */
  instances(): SampledInstance[] | null;
  retentionDays: number;
  /** Real elapsed milliseconds, which CPU time is measured against (the clock may be a test's). */
  elapsed?: () => number;
  /** A minute's rows were written (live views read again). */
  written?(): void;
  onError(error: unknown, message: string): void;
}

export class MetricsRecorder {
  private readonly usage: UsageMinute;
  private timer: unknown = null;
  private closed = true;
  private running: Promise<void> | null = null;
  /** The minute being collected (its start), null before the first round. */
  private minute: number | null = null;
  private prunedAt = 0;

  constructor(private readonly deps: MetricsRecorderDeps) {
    this.usage = new UsageMinute(deps.elapsed ?? (() => performance.now()));
  }

  start(): void {
    this.closed = false;
    this.arm();
  }

  /** One round: writes the minute that ended, if one did, then samples. */
  round(): Promise<void> {
    this.running ??= this.collect().finally(() => (this.running = null));
    return this.running;
  }

  /** Deletes the rows older than the retention. */
  async prune(): Promise<void> {
    const before = new Date(this.deps.clock.now() - this.deps.retentionDays * 86_400_000);
    await this.deps.db.appUsageMinute.deleteMany({ where: { minute: { lt: before } } });
    await this.deps.db.appRequestMinute.deleteMany({ where: { minute: { lt: before } } });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private arm(): void {
    if (this.closed) return;
    this.timer = this.deps.clock.setTimeout(() => {
      void this.round()
        .catch((error: unknown) => this.deps.onError(error, "recording app metrics failed"))
        .finally(() => this.arm());
    }, SAMPLE_MS);
  }

  private async collect(): Promise<void> {
    const now = this.deps.clock.now();
    const minute = now - (now % MINUTE_MS);
    if (this.minute !== null && minute > this.minute) {
      await this.write(new Date(this.minute));
      this.deps.written?.();
    }
    this.minute = minute;
    const instances = this.deps.instances();
    if (instances) await this.usage.sample(instances);
    if (instances && now - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = now;
      await this.prune();
    }
  }

  private async write(minute: Date): Promise<void> {
    const { db, counts, source } = this.deps;
    // Another leader may have written part of this minute before a failover: the newer rows replace them.
    for (const row of this.usage.drain()) {
      const key = { appId_minute_process: { appId: row.appId, minute, process: row.process } };
      await db.appUsageMinute.upsert({ where: key, create: { ...row, minute }, update: row }).catch((error: unknown) => this.deps.onError(error, `writing the metrics of app ${row.appId} failed`));
    }
    const tallies = counts.drain();
    if (tallies.size === 0) return;
    const apps = await db.app.findMany({ where: { slug: { in: [...tallies.keys()] } }, select: { id: true, slug: true } });
    const data = apps.map((app) => {
      const tally = tallies.get(app.slug)!;
      return { appId: app.id, minute, source, requests: tally.requests, errors: tally.errors, latency: encodeHistogram(tally.latency) };
    });
    await db.appRequestMinute.createMany({ data });
  }
}
