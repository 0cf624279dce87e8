/**
 * Sliding-window hit logs: in-process by default, Redis when several instances share limits. Each key keeps
 * the moments its hits leave their window (grouped, see buckets.ts), so a count is always "the hits of the
 * last `windowMs`" (give or take 1% more) and no window boundary lets a burst through twice.
 */
export interface CounterStore {
  /** Records one hit on `key` and returns the hits of the last `windowMs`, this one included. */
  increment(key: string, windowMs: number): Promise<Counter>;
  /** The hits still in their window, without adding one; null when there are none. */
  peek(key: string): Promise<Counter | null>;
  /**
   * A rate limit: records `weight` hits (default 1) only if the last `windowMs` then holds at most `limit`.
   * Atomic, so concurrent callers (and instances sharing Redis) never let more than `limit` through.
   */
  take(key: string, rule: TakeRule): Promise<Take>;
  /** `take` without waiting, for stores that count in this process (absent where counting is a round trip). */
  takeNow?(key: string, rule: TakeRule): Take;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export interface Counter {
  count: number;
  /** When the oldest counted hit leaves its window, i.e. when `count` next falls (ms since epoch). */
  resetAt: number;
}

export interface TakeRule {
  limit: number;
  windowMs: number;
  weight?: number;
}

export interface Take extends Counter {
  allowed: boolean;
  /** When `weight` more hits would fit (ms since epoch): now when allowed; never before resetAt otherwise. */
  retryAt: number;
}
