// Drives one scenario with autocannon and refuses results that include anything but 2xx answers.
import autocannon, { type Result } from "autocannon";
import { localBusy } from "./busy.ts";
import type { LoadOptions, Measurement, Target, TargetSource } from "./types.ts";

export class BenchError extends Error {}

/**
 * The load generator runs in a worker thread (autocannon's `workers: 1`) so it does not share the event
 * loop with the servers under test, which run on the main thread of this process (or in a child process:
 * lib/child-server.ts).
 */
export async function measure(source: TargetSource, options: LoadOptions): Promise<Measurement> {
  const prepare = async () => (typeof source === "function" ? source(options) : source);
  const run = (target: Target, durationSeconds: number) =>
    autocannon({
      url: target.url,
      method: target.method ?? "GET",
      headers: target.headers,
      body: target.body,
      requests: target.requests,
      initialContext: target.initialContext,
      connections: options.connections,
      duration: durationSeconds,
      workers: 1,
    });
  if (options.warmupSeconds > 0) {
    const warmup = await prepare();
    refuseFailures(warmup, await run(warmup, options.warmupSeconds));
  }
  const target = await prepare();
  // Event-loop utilization of the servers' thread: busy time per answered request, a measure of server cost
  // that does not depend on whether the load generator kept up.
  const busy = target.busy ?? localBusy();
  await busy.start();
  const result = await run(target, options.durationSeconds);
  const activeMs = await busy.stop();
  refuseFailures(target, result);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    totalRequests: result["2xx"],
    serverMicrosPerRequest: (activeMs * 1000) / result["2xx"],
  };
}

function refuseFailures(target: Target, result: Result): void {
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed === 0 && result["2xx"] > 0) return;
  const codes = Object.entries(result.statusCodeStats).map(([code, { count }]) => `${code}×${count}`).join(", ");
  throw new BenchError(
    `${target.method ?? "GET"} ${target.url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts ` +
      `out of ${result["2xx"] + result.non2xx} responses (status codes: ${codes || "none"}). Refusing these numbers.`,
  );
}
