import type { Counter, CounterStore } from "./types.ts";

export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, Counter>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs).unref();
  }

  async increment(key: string, windowMs: number): Promise<Counter> {
    const now = Date.now();
    let counter = this.counters.get(key);
    if (!counter || counter.resetAt <= now) {
      counter = { count: 0, resetAt: now + windowMs };
      this.counters.set(key, counter);
    }
    counter.count += 1;
    return { ...counter };
  }

  async peek(key: string): Promise<Counter | null> {
    const counter = this.counters.get(key);
    return counter && counter.resetAt > Date.now() ? { ...counter } : null;
  }

  async reset(key: string): Promise<void> {
    this.counters.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private sweep() {
    const now = Date.now();
    for (const [key, counter] of this.counters) if (counter.resetAt <= now) this.counters.delete(key);
  }
}
