// App metrics without waiting for the sampling timer: moves the platform's clock to a time, letting each metrics round
// that fell due run to its end, then runs one round at that time (what a 10 s tick does).
import type { MetricsRecorder } from "../../server/hosting/metrics/recorder.ts";
import type { FakeClock } from "./fake-clock.ts";

export async function metricsRoundAt(clock: FakeClock, recorder: MetricsRecorder, time: number): Promise<void> {
  await clock.advanceTo(Math.max(time, clock.now()), () => recorder.round());
  await recorder.round();
}
