// Busy time of the thread that serves a scenario: this process's main thread (event-loop utilization), or
// that of a child process serving it (see child-server.ts).
import { performance, type EventLoopUtilization } from "node:perf_hooks";

export interface BusyProbe {
  /** Collects garbage where the server runs (so no run pays for an earlier one's), then starts counting. */
  start(): Promise<void>;
  /** Milliseconds the server's thread was busy since start(). */
  stop(): Promise<number>;
}

export function localBusy(): BusyProbe {
  let before: EventLoopUtilization | undefined;
  return {
    async start() {
      collectGarbage();
      before = performance.eventLoopUtilization();
    },
    async stop() {
      return performance.eventLoopUtilization(before).active;
    },
  };
}

/**
 * A full collection (`npm run bench` runs node with --expose-gc): otherwise a scenario pays for the garbage an
 * earlier one promoted, and which scenario a mark-compact lands in depends on their order.
 */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
