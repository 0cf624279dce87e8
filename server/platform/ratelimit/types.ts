/** A fixed-window counter store: in-process by default, Redis when several instances share limits. */
export interface CounterStore {
  /** Adds one hit to `key` and returns the window's count and when it resets (ms since epoch). */
  increment(key: string, windowMs: number): Promise<Counter>;
  /** Reads a counter without adding to it. */
  peek(key: string): Promise<Counter | null>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export interface Counter {
  count: number;
  resetAt: number;
}
