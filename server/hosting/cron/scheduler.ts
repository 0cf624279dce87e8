// Starts the live releases' cron jobs at their minutes, on an injected clock. Each (job, minute) is claimed in the
// database first (a CronTick row, its primary key the claim): of several platform instances on one database, or of
// one restarted within the minute, only the first claim runs it. A job whose previous run still runs skips the
// minute, logged in the app's runtime log. At boot the current minute is caught up (a run due less than a minute
// ago that nobody claimed still runs); minutes further back are skipped, as Heroku Scheduler does.
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import { CronSchedule } from "./schedule.ts";

export type CronJobRow = Awaited<ReturnType<Db["cronJob"]["findUniqueOrThrow"]>>;

export interface CronSchedulerDeps {
  db: Db;
  clock: Clock;
  /** Starts a run of the job (trigger cron); rejects with a message for the app's owner when it cannot. */
  start(job: CronJobRow): Promise<unknown>;
  /** A line of the platform's own in the app's runtime log. */
  log(appId: string, line: string): void;
  onError(error: unknown, message: string): void;
}

const MINUTE_MS = 60_000;
/** Claims older than this are deleted: no instance still ticks a minute that far back. */
const CLAIMS_KEPT_MS = 60 * MINUTE_MS;
const UNFINISHED = ["QUEUED", "RUNNING"] as const;
/** Apps whose cron runs: a stopped app's does not, nor one that never went live. */
const IDLE_APPS = ["STOPPED", "CREATED"] as const;

export const minuteOf = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

export class CronScheduler {
  private timer: unknown = null;
  private closed = false;
  private readonly ticks = new Set<Promise<void>>();
  private readonly schedules = new Map<string, CronSchedule>();

  constructor(private readonly deps: CronSchedulerDeps) {}

  /** Catches up the current minute, then ticks at every minute boundary. */
  start(): void {
    this.closed = false;
    this.run(new Date(minuteOf(this.deps.clock.now())));
    this.arm();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.settled();
  }

  /** Resolves once the ticks under way have started their runs (or skipped them). */
  async settled(): Promise<void> {
    await Promise.all([...this.ticks]);
  }

  /** Starts every job due at `minute` that this instance claims first. */
  async tick(minute: Date): Promise<void> {
    const { db } = this.deps;
    const jobs = await db.cronJob.findMany({ where: { app: { liveDeploymentId: { not: null }, status: { notIn: [...IDLE_APPS] } } } });
    await Promise.all(jobs.filter((job) => this.scheduleOf(job.schedule)?.matches(minute)).map((job) => this.fire(job, minute)));
    await db.cronTick.deleteMany({ where: { scheduledFor: { lt: new Date(minute.getTime() - CLAIMS_KEPT_MS) } } });
  }

  private async fire(job: CronJobRow, minute: Date): Promise<void> {
    if (!(await this.claim(job.id, minute))) return;
    const at = minute.toISOString().slice(0, 16).replace("T", " ");
    const previous = await this.deps.db.run.findFirst({ where: { cronJobId: job.id, status: { in: [...UNFINISHED] } }, select: { id: true } });
    if (previous) {
      this.deps.log(job.appId, `Cron job ${job.id} (\`${job.command}\`) skipped its run of ${at} UTC: its previous run ${previous.id} still runs.`);
      return;
    }
    await this.deps.start(job).catch((error: unknown) => {
      this.deps.log(job.appId, `Cron job ${job.id} (\`${job.command}\`) did not start its run of ${at} UTC: ${(error as Error).message}`);
    });
  }

  private async claim(cronJobId: string, scheduledFor: Date): Promise<boolean> {
    try {
      await this.deps.db.cronTick.create({ data: { cronJobId, scheduledFor } });
      return true;
    } catch (error) {
      // P2002: claimed already (here before a restart, or by another instance); P2003: the job was removed meanwhile.
      if ((error as { code?: string }).code === "P2002" || (error as { code?: string }).code === "P2003") return false;
      throw error;
    }
  }

  /** Null for a schedule that no longer parses (kept by a release built before a parser change): it never runs. */
  private scheduleOf(text: string): CronSchedule | null {
    let schedule = this.schedules.get(text);
    if (!schedule) {
      try {
        schedule = CronSchedule.parse(text);
      } catch {
        return null;
      }
      this.schedules.set(text, schedule);
    }
    return schedule;
  }

  private arm(): void {
    if (this.closed) return;
    const now = this.deps.clock.now();
    const due = minuteOf(now) + MINUTE_MS;
    this.timer = this.deps.clock.setTimeout(() => this.due(due), due - now);
  }

  private due(boundary: number): void {
    if (this.closed) return;
    const now = this.deps.clock.now();
    // A timer may fire a little early: wait out the rest rather than tick the minute before again.
    if (now < boundary) {
      this.timer = this.deps.clock.setTimeout(() => this.due(boundary), boundary - now);
      return;
    }
    this.arm();
    this.run(new Date(minuteOf(now)));
  }

  private run(minute: Date): void {
    const tick = this.tick(minute).catch((error: unknown) => this.deps.onError(error, `running the cron jobs of ${minute.toISOString()}`));
    this.ticks.add(tick);
    void tick.finally(() => this.ticks.delete(tick));
  }
}
