// A clock tests move by hand: timers fire in order as time is advanced past them, and each one's async work settles
// before the next fires. Nothing waits for real time.
import type { Clock } from "../../server/hosting/clock.ts";

interface Timer {
  at: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private readonly timers = new Set<Timer>();

  constructor(private time: number) {}

  now = () => this.time;

  setTimeout = (fn: () => void, ms: number): unknown => {
    const timer = { at: this.time + Math.max(0, ms), fn };
    this.timers.add(timer);
    return timer;
  };

  clearTimeout = (handle: unknown): void => {
    this.timers.delete(handle as Timer);
  };

  /** Moves to `time`, firing every timer due by then in order; `settle` runs after each (awaits the work it began). */
  async advanceTo(time: number, settle: () => Promise<unknown> = () => Promise.resolve()): Promise<void> {
    for (;;) {
      const due = [...this.timers].filter((t) => t.at <= time).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.delete(due);
      this.time = Math.max(this.time, due.at);
      due.fn();
      await settle();
    }
    this.time = time;
  }

  get pending(): number {
    return this.timers.size;
  }

  /** Whether a timer is set to fire at exactly `time`. */
  hasTimerAt(time: number): boolean {
    return [...this.timers].some((t) => t.at === time);
  }
}
