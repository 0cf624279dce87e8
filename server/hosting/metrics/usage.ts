// The CPU and memory of each app's process types over one minute, from samples of their instances: CPU is the rate
// between an instance's two latest samples (cores), memory its usage now; both are summed over a type's instances at
// each sample and averaged over the minute's samples.
import type { SampledInstance } from "../engine.ts";

/** Samples closer than this (real time) give no rate: CPU time counted over a few milliseconds is mostly noise. */
const MIN_RATE_MS = 200;

export interface UsageRow {
  appId: string;
  process: string;
  cpu: number;
  memory: number;
  memoryLimit: number;
  restarts: number;
}

interface Accumulated {
  cpuSum: number;
  cpuSamples: number;
  memorySum: number;
  memorySamples: number;
  memoryLimit: number;
  restarts: number;
}

export class UsageMinute {
  /** Each instance's previous sample: its CPU time, and when (on the elapsed-time clock). */
  private readonly previous = new Map<string, { cpuNanos: number; at: number }>();
  private minute = new Map<string, Accumulated>();

  /** `elapsed`: real milliseconds (monotonic), which CPU time is measured against, whatever the platform's clock. */
  constructor(private readonly elapsed: () => number) {}

  /** Reads every instance's stats once and adds them to the minute. */
  async sample(instances: SampledInstance[]): Promise<void> {
    const stats = await Promise.all(instances.map((i) => i.instance.stats?.().catch(() => null) ?? null));
    const at = this.elapsed();
    const seen = new Set<string>();
    const tick = new Map<string, { cpu: number | null; memory: number | null; memoryLimit: number; restarts: number }>();
    instances.forEach(({ appId, process, restarts, instance }, i) => {
      // An instance the driver cannot read (swarm's tasks, one that just exited) adds nothing: no row of zeros.
      const now = stats[i];
      if (!now) return;
      const key = `${appId}\n${process}`;
      const sum = tick.get(key) ?? { cpu: null, memory: null, memoryLimit: 0, restarts: 0 };
      tick.set(key, sum);
      sum.restarts = Math.max(sum.restarts, restarts);
      seen.add(instance.instanceId);
      const before = this.previous.get(instance.instanceId);
      if (now.cpuNanos !== null && (!before || at - before.at >= MIN_RATE_MS)) {
        if (before) sum.cpu = (sum.cpu ?? 0) + Math.max(0, now.cpuNanos - before.cpuNanos) / ((at - before.at) * 1e6);
        this.previous.set(instance.instanceId, { cpuNanos: now.cpuNanos, at });
      }
      if (now.memoryBytes !== null) sum.memory = (sum.memory ?? 0) + now.memoryBytes;
      sum.memoryLimit += now.memoryLimitBytes ?? 0;
    });
    for (const id of this.previous.keys()) if (!seen.has(id)) this.previous.delete(id);
    for (const [key, sum] of tick) {
      const acc = this.minute.get(key) ?? { cpuSum: 0, cpuSamples: 0, memorySum: 0, memorySamples: 0, memoryLimit: 0, restarts: 0 };
      this.minute.set(key, acc);
      if (sum.cpu !== null) (acc.cpuSum += sum.cpu), acc.cpuSamples++;
      if (sum.memory !== null) (acc.memorySum += sum.memory), acc.memorySamples++;
      acc.memoryLimit = Math.max(acc.memoryLimit, sum.memoryLimit);
      acc.restarts = Math.max(acc.restarts, sum.restarts);
    }
  }

  /** The minute's rows; the next minute starts empty. */
  drain(): UsageRow[] {
    const rows = [...this.minute].map(([key, acc]) => {
      const [appId, process] = key.split("\n");
      const cpu = acc.cpuSamples ? acc.cpuSum / acc.cpuSamples : 0;
      const memory = acc.memorySamples ? acc.memorySum / acc.memorySamples : 0;
      return { appId, process, cpu, memory: Math.round(memory), memoryLimit: acc.memoryLimit, restarts: acc.restarts };
    });
    this.minute = new Map();
    return rows;
  }
}
