/** Topic-based publish/subscribe: in-process by default, Redis when several instances share events. */
export interface PubSub {
  publish(topic: string, payload: unknown): Promise<void>;
  /** Resolves once listening; then yields every payload published on `topic`. `return()` (or leaving a for-await) ends it. */
  subscribe(topic: string): Promise<AsyncIterableIterator<unknown>>;
  close(): Promise<void>;
}
