// A crash loop is one event, not one per crash: the 5th crash of an app within 10 minutes raises app.crashed, and
// no other until the loop ended (10 minutes without a crash) or a deploy went live.
import type { Clock } from "../hosting/clock.ts";

export const CRASH_LOOP = { crashes: 5, withinMs: 10 * 60_000 } as const;

export class CrashLoops {
  private readonly crashes = new Map<string, number[]>();
  private readonly raised = new Set<string>();

  constructor(private readonly clock: Pick<Clock, "now">) {}

  /** Records a crash of APP; true when it starts a crash loop (raise app.crashed now). */
  crashed(appId: string): boolean {
    const now = this.clock.now();
    const recent = (this.crashes.get(appId) ?? []).filter((at) => now - at < CRASH_LOOP.withinMs);
    if (!recent.length) this.raised.delete(appId);
    recent.push(now);
    this.crashes.set(appId, recent.slice(-CRASH_LOOP.crashes));
    if (recent.length < CRASH_LOOP.crashes || this.raised.has(appId)) return false;
    this.raised.add(appId);
    return true;
  }

  /** A new release went live, or the app stopped or went: its count starts again. */
  reset(appId: string): void {
    this.crashes.delete(appId);
    this.raised.delete(appId);
  }
}
