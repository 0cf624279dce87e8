import { bucketOf } from "./buckets.ts";
import type { Counter, CounterStore, Take, TakeRule } from "./types.ts";

/** A key's hits, grouped by the moment they leave their window (see buckets.ts), oldest first. */
interface Log {
  leaveAt: number[];
  hits: number[];
  count: number;
}

export class MemoryCounterStore implements CounterStore {
  private readonly logs = new Map<string, Log>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(options: { now?: () => number; sweepEveryMs?: number } = {}) {
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), options.sweepEveryMs ?? 60_000).unref();
  }

  async increment(key: string, windowMs: number): Promise<Counter> {
    const now = this.now();
    const log = this.live(key, now);
    add(log, now, windowMs, 1);
    return { count: log.count, resetAt: log.leaveAt[0] };
  }

  async peek(key: string): Promise<Counter | null> {
    const log = this.live(key, this.now());
    return log.count > 0 ? { count: log.count, resetAt: log.leaveAt[0] } : null;
  }

  async take(key: string, rule: TakeRule): Promise<Take> {
    return this.takeNow(key, rule);
  }

  takeNow(key: string, { limit, windowMs, weight = 1 }: TakeRule): Take {
    const now = this.now();
    const log = this.live(key, now);
    const allowed = log.count + weight <= limit;
    if (allowed) add(log, now, windowMs, weight);
    return { allowed, count: log.count, resetAt: log.leaveAt[0] ?? now + windowMs, retryAt: allowed ? now : retryAt(log, log.count + weight - limit) };
  }

  async reset(key: string): Promise<void> {
    this.logs.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  /** The key's log without the hits whose window has passed (created empty if needed). */
  private live(key: string, now: number): Log {
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = { leaveAt: [], hits: [], count: 0 }));
    let passed = 0;
    while (passed < log.leaveAt.length && log.leaveAt[passed] <= now) log.count -= log.hits[passed++];
    if (passed > 0) {
      log.leaveAt.splice(0, passed);
      log.hits.splice(0, passed);
    }
    return log;
  }

  private sweep() {
    const now = this.now();
    for (const [key, log] of this.logs) if (log.count === 0 || log.leaveAt[log.leaveAt.length - 1] <= now) this.logs.delete(key);
  }
}

function add(log: Log, now: number, windowMs: number, weight: number) {
  const last = log.leaveAt.length - 1;
  // Never before the last group: a clock stepping back keeps the order.
  const leaveAt = Math.max(bucketOf(now, windowMs), log.leaveAt[last] ?? 0);
  if (leaveAt === log.leaveAt[last]) {
    log.hits[last] += weight;
  } else {
    log.leaveAt.push(leaveAt);
    log.hits.push(weight);
  }
  log.count += weight;
}

/** When `mustLeave` hits will have left (Infinity when the log does not hold that many). */
function retryAt(log: Log, mustLeave: number): number {
  let left = 0;
  for (let i = 0; i < log.leaveAt.length; i++) {
    left += log.hits[i];
    if (left >= mustLeave) return log.leaveAt[i];
  }
  return Infinity;
}
