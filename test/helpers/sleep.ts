// Idleness without waiting: moves the platform's clock on, lets each sleep-timer round that fell due run to its end,
// then runs one round at the new time (the rounds' own timers fire on the fake clock).
import { SLEEP_CHECK_MS, type SleepScheduler } from "../../server/hosting/sleep/scheduler.ts";
import type { FakeClock } from "./fake-clock.ts";

export async function idleFor(clock: FakeClock, sleeps: SleepScheduler, ms: number): Promise<void> {
  await clock.advanceTo(clock.now() + ms, () => sleeps.check());
  await sleeps.check();
}

/** Idle long enough for an app with `minutes` to be put to sleep by the next round. */
export const idleMinutes = (clock: FakeClock, sleeps: SleepScheduler, minutes: number) => idleFor(clock, sleeps, minutes * 60_000 + SLEEP_CHECK_MS);
