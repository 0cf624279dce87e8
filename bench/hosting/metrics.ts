// What app metrics cost. Router: requests/s through the router with metrics (each answer recorded in RequestCounts,
// drained and encoded as the recorder does every minute) against the same router without, in paired rounds (the
// order swapped every round), on this process's main thread with autocannon in a worker and the app in its own
// process. Sampling: the leader's rounds (UsageMinute.sample: cpuacct.usage, memory.usage_in_bytes and
// memory.limit_in_bytes of each instance's cgroup) over 100 real cgroup v1 groups, this process's CPU time per
// round against the 10 s between rounds. The minute's database writes are not in it (one upsert per app and type a
// minute).
import os from "node:os";
import { createRouter, type RouteTable } from "../../server/hosting/router/index.ts";
import { encodeHistogram } from "../../server/hosting/metrics/latency.ts";
import { RequestCounts } from "../../server/hosting/metrics/requests.ts";
import { SAMPLE_MS } from "../../server/hosting/metrics/recorder.ts";
import { UsageMinute } from "../../server/hosting/metrics/usage.ts";
import { Cgroup, findMounts } from "../../server/platform/runtime/local/cgroups.ts";
import type { SampledInstance } from "../../server/hosting/engine.ts";
import { measure } from "../lib/load.ts";
import { startOkApp } from "../lib/proxies.ts";
import { percentile } from "./client.ts";

const ROUTER_GOAL = 0.02;
const SAMPLING_GOAL = 0.01;
const INSTANCES = 100;
const LOAD = { connections: 10, durationSeconds: 5, warmupSeconds: 1 };

interface Pair {
  plain: number;
  metered: number;
  plainMicros: number;
  meteredMicros: number;
}

/** A router on its own port in front of `upstream`, with or without the metrics' per-answer record. */
async function startRouter(upstreamPort: number, counts?: RequestCounts) {
  const routes: RouteTable = { lookup: (slug) => (slug === "bench" ? { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: upstreamPort }] } : { kind: "unknown" }) };
  const router = createRouter({ appsDomain: "localhost", publicUrl: "http://127.0.0.1", routes, counts });
  const server = router.serverFactory((_req, res) => res.writeHead(404).end(), {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  // What the recorder does with the counts once a minute, here every 10 s (more often than it would).
  const drain = counts ? setInterval(() => [...counts.drain().values()].map((t) => encodeHistogram(t.latency)), SAMPLE_MS) : null;
  return {
    target: { url: `http://127.0.0.1:${port}/`, headers: { host: `bench.localhost:${port}` } },
    close: async () => {
      if (drain) clearInterval(drain);
      await router.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export async function benchRouterWithMetrics(rounds: number): Promise<Pair[]> {
  const app = await startOkApp();
  const plain = await startRouter(app.port);
  const metered = await startRouter(app.port, new RequestCounts());
  try {
    const pairs: Pair[] = [];
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [plain, metered] : [metered, plain];
      const [first, second] = [await measure(order[0].target, LOAD), await measure(order[1].target, LOAD)];
      const [p, m] = order[0] === plain ? [first, second] : [second, first];
      pairs.push({ plain: p.requestsPerSecond, metered: m.requestsPerSecond, plainMicros: p.serverMicrosPerRequest, meteredMicros: m.serverMicrosPerRequest });
      console.log(`round ${round + 1}: ${Math.round(p.requestsPerSecond)} req/s without, ${Math.round(m.requestsPerSecond)} with`);
    }
    return pairs;
  } finally {
    await plain.close();
    await metered.close();
    await app.close();
  }
}

/** CPU milliseconds of this process per sampling round of 100 instances (real cgroups; empty: reading costs the same). */
export async function benchSampling(rounds: number): Promise<number[]> {
  const mounts = findMounts();
  if (!mounts.cpuacct || !mounts.memory) throw new Error("sampling needs the cgroup v1 cpuacct and memory controllers (run as root)");
  const parent = new Cgroup(mounts, `slipway-bench-metrics-${process.pid}`);
  const groups = Array.from({ length: INSTANCES }, (_, i) => parent.child(`i-${i}`));
  try {
    for (const group of groups) await group.create({ memoryBytes: 256 * 2 ** 20, cpuPercent: 100, pids: 64 });
    const instances: SampledInstance[] = groups.map((group, i) => ({
      appId: `app-${i % 50}`,
      process: i % 2 ? "worker" : "web",
      restarts: 0,
      instance: { instanceId: `i-${i}`, appKey: `app-${i % 50}`, pid: 0, target: { host: "", port: 0 }, exited: new Promise(() => {}), stop: async () => {}, stats: () => group.usage() },
    }));
    const usage = new UsageMinute(() => performance.now());
    await usage.sample(instances); // warm-up: the files' first opens
    const costs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      await new Promise((resolve) => setTimeout(resolve, 250)); // rates need 200 ms between samples
      const before = process.cpuUsage();
      await usage.sample(instances);
      if (round % 6 === 5) usage.drain(); // a minute's rows, every sixth round
      const used = process.cpuUsage(before);
      costs.push((used.user + used.system) / 1000);
    }
    return costs;
  } finally {
    await parent.remove();
  }
}

/** Nanoseconds per RequestCounts.record() (two clock reads included, as the router makes them), median of 5 runs. */
function recordNanos(): number {
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const counts = new RequestCounts();
    const calls = 2_000_000;
    const since = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) {
      const startedAt = performance.now();
      counts.record(i % 64 === 0 ? "other" : "bench", i % 100 === 0 ? 500 : 200, performance.now() - startedAt + (i % 50));
    }
    runs.push(Number(process.hrtime.bigint() - since) / calls);
  }
  return percentile(runs, 50);
}

export async function benchMetrics(rounds: number): Promise<string> {
  const nanos = recordNanos();
  console.log(`# metrics: router with and without, ${rounds} paired rounds`);
  const pairs = await benchRouterWithMetrics(rounds);
  console.log(`# metrics: sampling ${INSTANCES} instances, ${rounds * 10} rounds`);
  const costs = await benchSampling(rounds * 10);
  const ratios = pairs.map((p) => p.metered / p.plain);
  const ratio = percentile(ratios, 50);
  const cost = 1 - ratio;
  const micros = percentile(pairs.map((p) => p.meteredMicros - p.plainMicros), 50);
  const perRound = percentile(costs, 50);
  const plainMicros = percentile(pairs.map((p) => p.plainMicros), 50);
  const share = perRound / SAMPLE_MS;
  const rows = pairs.map((p, i) => `| ${i + 1} | ${Math.round(p.plain).toLocaleString("en")} | ${Math.round(p.metered).toLocaleString("en")} | ${(p.metered / p.plain).toFixed(3)} | ${p.plainMicros.toFixed(1)} | ${p.meteredMicros.toFixed(1)} |`);
  return [
    "## App metrics: what recording and sampling cost",
    "",
    `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:hosting -- --metrics ${rounds}\``,
    `- Router: Slipway's router alone (createRouter, no platform behind it) in front of a tiny Node app in its own process, with and without the metrics' per-answer record (RequestCounts: a map read, two increments, one histogram bucket); the metered one also drains and encodes its counts every 10 s. autocannon in a worker thread, ${LOAD.connections} connections, ${LOAD.durationSeconds} s per side after a ${LOAD.warmupSeconds} s warm-up, the two sides one after the other in each round, their order swapped every round.`,
    `- Sampling: the leader's round (hosting/metrics/usage.ts) over ${INSTANCES} real cgroup v1 groups (cpuacct.usage, memory.usage_in_bytes, memory.limit_in_bytes each: 300 reads), ${costs.length} rounds 250 ms apart, this process's CPU time (user + system) per round, against the ${SAMPLE_MS / 1000} s between rounds.`,
    "",
    "| round | req/s without | req/s with | with / without | µs/req without | µs/req with |",
    "|---:|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    `Router with metrics: **${ratio.toFixed(3)}×** the throughput without (median of the rounds' ratios): ${cost <= 0 ? "no measurable cost" : `a cost of **${(cost * 100).toFixed(1)}%**`} (goal ≤ ${ROUTER_GOAL * 100}%: ${cost <= ROUTER_GOAL ? "met ✅" : "missed ❌"}); ${micros.toFixed(1)} µs ${micros >= 0 ? "more" : "less"} of the router's thread per request (median). Load average when the run ended: ${os.loadavg().map((l) => l.toFixed(1)).join(", ")} on ${os.cpus().length} CPUs: where other work shares the machine, single rounds swing far more than 2% either way, so the throughput rounds bound the cost only loosely; the record's own cost below is the tight bound.`,
    "",
    `The record itself, measured alone: **${nanos.toFixed(0)} ns** per answer (two \`performance.now()\` reads, a map read, two increments, a bucket's logarithm and increment), **${((nanos / 1000 / plainMicros) * 100).toFixed(2)}%** of the ${plainMicros.toFixed(1)} µs the router's thread spends per request without metrics in this run: the bound on what recording can cost the router, whatever the noise of the throughput rounds.`,
    "",
    `Sampling ${INSTANCES} instances: **${perRound.toFixed(2)} ms** of CPU per round (median; p95 ${percentile(costs, 95).toFixed(2)} ms), **${(share * 100).toFixed(3)}%** of one CPU at one round per ${SAMPLE_MS / 1000} s (goal ≤ ${SAMPLING_GOAL * 100}%: ${share <= SAMPLING_GOAL ? "met ✅" : "missed ❌"}).`,
    "",
  ].join("\n");
}
