// An app's metrics over a range (metrics-range.ts), from the one-minute rows the recorder writes
// (hosting/metrics/recorder.ts): per step, CPU (cores) and memory (bytes) summed over the app's process types and
// averaged over the step's minutes, requests and 5xx summed over every platform process's rows, latency percentiles
// from their merged histograms. Also by process type. Live: again after every minute written.
import type { Db } from "../db/client.ts";
import { addEncoded, newHistogram, percentile, type Histogram } from "../hosting/metrics/latency.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { AppRow, AppService } from "./apps.ts";
import { parseMetricsRange, type MetricsRange, type MetricsRangeInput } from "./metrics-range.ts";

/** [ISO time of the step's start, value]: null where nothing was measured. */
export type MetricSeries = Array<[string, number | null]>;

export interface AppMetrics {
  from: Date;
  to: Date;
  /** Seconds. */
  step: number;
  series: { cpu: MetricSeries; memory: MetricSeries; memoryLimit: MetricSeries; requests: MetricSeries; errors: MetricSeries; latencyP50: MetricSeries; latencyP95: MetricSeries };
  /** restarts: the most failures in a row of one of the type's instances in the step (App.processes' restarts). */
  byProcess: Record<string, { cpu: MetricSeries; memory: MetricSeries; restarts: MetricSeries }>;
}

/** Published after a minute's rows were written (any app): live views read again. */
export const METRICS_TOPIC = "metrics:written";

export function createMetricsService(deps: { db: Db; apps: AppService; pubsub: PubSub; retentionDays: number; now: () => Date }) {
  const { db } = deps;

  async function ofApp(app: Pick<AppRow, "id">, input: MetricsRangeInput): Promise<AppMetrics> {
    const now = deps.now().getTime();
    const range = parseMetricsRange(input, now, deps.retentionDays);
    const where = { appId: app.id, minute: { gte: new Date(range.from), lt: new Date(range.to) } };
    const [usage, requests] = await Promise.all([db.appUsageMinute.findMany({ where }), db.appRequestMinute.findMany({ where })]);
    const at = (minute: Date) => Math.floor((minute.getTime() - range.from) / range.stepMs);
    const times = Array.from({ length: range.points }, (_, i) => new Date(range.from + i * range.stepMs).toISOString());

    // Per step: each process type's per-minute sums, then the mean over the minutes that have rows.
    const total = new UsageSteps(range);
    const byType = new Map<string, UsageSteps>();
    for (const row of usage) {
      total.add(at(row.minute), row);
      if (!byType.has(row.process)) byType.set(row.process, new UsageSteps(range));
      byType.get(row.process)!.add(at(row.minute), row);
    }
    // A step from the minute under way on is not written yet: null, not 0 requests.
    const unwritten = (i: number) => range.from + i * range.stepMs >= now - (now % 60_000);
    const counts = times.map((_, i) => (unwritten(i) ? null : { requests: 0, errors: 0, latency: null as Histogram | null }));
    for (const row of requests) {
      const step = counts[at(row.minute)];
      if (!step) continue;
      step.requests += row.requests;
      step.errors += row.errors;
      addEncoded((step.latency ??= newHistogram()), row.latency);
    }
    const series = (values: (number | null)[]): MetricSeries => values.map((value, i) => [times[i], value]);
    return {
      from: new Date(range.from),
      to: new Date(range.to),
      step: range.stepMs / 1000,
      series: {
        cpu: series(total.cpu()),
        memory: series(total.memory()),
        memoryLimit: series(total.memoryLimit()),
        requests: series(counts.map((c) => c?.requests ?? null)),
        errors: series(counts.map((c) => c?.errors ?? null)),
        latencyP50: series(counts.map((c) => (c?.latency ? percentile(c.latency, 0.5) : null))),
        latencyP95: series(counts.map((c) => (c?.latency ? percentile(c.latency, 0.95) : null))),
      },
      byProcess: Object.fromEntries([...byType].map(([type, steps]) => [type, { cpu: series(steps.cpu()), memory: series(steps.memory()), restarts: series(steps.restarts()) }])),
    };
  }

  return {
    ofApp,

    now: () => deps.now().getTime(),
    /** The longest span kept (METRICS_RETENTION_DAYS), in seconds: a "last week" view is cut to it. */
    retentionSeconds: deps.retentionDays * 86_400,

    mine: async (ownerId: string, slug: string, input: MetricsRangeInput) => ofApp(await deps.apps.mine(ownerId, slug), input),

    /** Yields now, then after every minute the recorder writes, for as long as the subscriber stays. */
    async watch(ownerId: string, slug: string): Promise<AsyncGenerator<void>> {
      await deps.apps.mine(ownerId, slug);
      const written = await deps.pubsub.subscribe(METRICS_TOPIC);
      return (async function* () {
        try {
          yield;
          for await (const _ of written) yield;
        } finally {
          await written.return?.();
        }
      })();
    },
  };
}

interface MinuteSum {
  cpu: number;
  memory: number;
  limit: number;
  restarts: number;
}

/** CPU and memory per step: summed over rows of the same minute, averaged over the step's minutes with rows. */
class UsageSteps {
  private readonly minutes: Array<Map<number, MinuteSum>>;

  constructor(range: MetricsRange) {
    this.minutes = Array.from({ length: range.points }, () => new Map());
  }

  add(step: number, row: { minute: Date; cpu: number; memory: number; memoryLimit: number; restarts: number }): void {
    const sums = this.minutes[step];
    const sum = sums.get(row.minute.getTime()) ?? { cpu: 0, memory: 0, limit: 0, restarts: 0 };
    sums.set(row.minute.getTime(), { cpu: sum.cpu + row.cpu, memory: sum.memory + row.memory, limit: sum.limit + row.memoryLimit, restarts: Math.max(sum.restarts, row.restarts) });
  }

  cpu = () => this.mean((m) => m.cpu, 1000);
  memory = () => this.mean((m) => m.memory, 1);
  memoryLimit = () => this.most((m) => m.limit);
  restarts = () => this.most((m) => m.restarts);

  private most(of: (m: MinuteSum) => number): (number | null)[] {
    return this.minutes.map((sums) => (sums.size ? Math.max(...[...sums.values()].map(of)) : null));
  }

  /** `round`: 1000 keeps three decimals (cores), 1 whole units (bytes). */
  private mean(of: (m: MinuteSum) => number, round: number): (number | null)[] {
    return this.minutes.map((sums) => {
      if (sums.size === 0) return null;
      let total = 0;
      for (const m of sums.values()) total += of(m);
      return Math.round((total / sums.size) * round) / round;
    });
  }
}
