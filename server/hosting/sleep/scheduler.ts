// The leader's sleep timer: every SLEEP_CHECK_MS, each running app with sleepAfterMinutes that saw no request for
// that long (here or on another instance) and has no WebSocket open is put to sleep. Time is the injected clock's:
// requests, going live and the checks are all read from it, so tests move it instead of waiting.
import type { Db } from "../../db/client.ts";
import type { Clock } from "../clock.ts";
import type { Activity } from "./activity.ts";

export const SLEEP_CHECK_MS = 30_000;

export interface SleepDeps {
  db: Db;
  clock: Clock;
  activity: Activity;
  /** Marks the apps that sleep when idle in the route table (an edge then sends their requests through the router). */
  sleepsWhenIdle(slug: string, sleeps: boolean): void;
  sleep(app: { id: string; slug: string; sleepWorkers: boolean }, idleMinutes: number): Promise<boolean>;
  onError(error: unknown, message: string): void;
}

export class SleepScheduler {
  private timer: unknown = null;
  private closed = true;
  /** Since when each app has been serving, as far as this scheduler knows (going live counts as activity). */
  private readonly awakeSince = new Map<string, number>();
  private checking: Promise<void> | null = null;

  constructor(private readonly deps: SleepDeps) {}

  async start(): Promise<void> {
    this.closed = false;
    const apps = await this.deps.db.app.findMany({ where: { sleepAfterMinutes: { not: null } }, select: { slug: true } });
    for (const app of apps) this.deps.sleepsWhenIdle(app.slug, true);
    this.arm();
  }

  /** A release of the app went live, or it woke: its idle time counts from now. */
  awake(appId: string): void {
    this.awakeSince.set(appId, this.deps.clock.now());
  }

  /** One round: puts to sleep every app idle for its sleepAfterMinutes. */
  check(): Promise<void> {
    this.checking ??= this.sleepIdle().finally(() => (this.checking = null));
    return this.checking;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.checking;
  }

  private arm(): void {
    if (this.closed) return;
    this.timer = this.deps.clock.setTimeout(() => {
      void this.check()
        .catch((error: unknown) => this.deps.onError(error, "putting idle apps to sleep failed"))
        .finally(() => this.arm());
    }, SLEEP_CHECK_MS);
  }

  private async sleepIdle(): Promise<void> {
    const { db, clock, activity } = this.deps;
    const now = clock.now();
    const apps = await db.app.findMany({ where: { sleepAfterMinutes: { not: null }, status: "RUNNING" }, select: { id: true, slug: true, sleepAfterMinutes: true, sleepWorkers: true } });
    const running = new Set(apps.map((app) => app.id));
    for (const id of this.awakeSince.keys()) if (!running.has(id)) this.awakeSince.delete(id);
    for (const app of apps) {
      if (!this.awakeSince.has(app.id)) this.awakeSince.set(app.id, now);
      const lastActive = Math.max(activity.lastRequestAt(app.slug) ?? 0, this.awakeSince.get(app.id)!);
      const minutes = app.sleepAfterMinutes!;
      if (now - lastActive < minutes * 60_000 || activity.openSockets(app.slug) > 0) continue;
      if (this.closed) return;
      await this.deps.sleep(app, minutes).catch((error: unknown) => this.deps.onError(error, `putting app ${app.slug} to sleep failed`));
      this.awakeSince.delete(app.id);
    }
  }
}
