// Apps sleep on the leader's timer, but requests reach every instance's router: each follower tells the leader what
// its router saw (each app's last request and open WebSockets) every few seconds, so an app busy through a
// follower never sleeps. A report lost with a dead follower only lets its apps sleep sooner.
import type { Activity, ActivityReport } from "../../hosting/sleep/activity.ts";
import type { PubSub } from "../pubsub/index.ts";

const ACTIVITY = "cluster:activity";
/** Well within the sleep timer's own period (30 s) and the shortest sleepAfterMinutes (1 minute). */
export const REPORT_EVERY_MS = 5_000;

export interface ActivityReportDeps {
  /** This instance's cluster id (clusterInstanceId): a restarted follower's report replaces its earlier one. */
  instance: string;
  pubsub: PubSub;
  activity: Activity;
  leading(): boolean;
  onError(error: unknown, message: string): void;
}

export class ActivityReports {
  private subscription: AsyncIterableIterator<unknown> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: ActivityReportDeps) {}

  async start(): Promise<void> {
    this.subscription = await this.deps.pubsub.subscribe(ACTIVITY);
    void this.listen(this.subscription);
    this.timer = setInterval(() => {
      if (this.deps.leading()) return;
      const message = { from: this.deps.instance, report: this.deps.activity.report() };
      this.deps.pubsub.publish(ACTIVITY, message).catch((error: unknown) => this.deps.onError(error, "reporting the apps' activity to the leader"));
    }, REPORT_EVERY_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.return?.();
  }

  private async listen(subscription: AsyncIterableIterator<unknown>): Promise<void> {
    try {
      for await (const message of subscription) {
        const { from, report } = message as { from: string; report: ActivityReport };
        if (from !== this.deps.instance && this.deps.leading()) this.deps.activity.merge(from, report);
      }
    } catch (error) {
      this.deps.onError(error, "reading the followers' activity reports");
    }
  }
}
