// A process-local cache for hot rows that change rarely: who a session or token belongs to, an account's
// quota and usage. Every write to the models they come from clears it, here and (through pub/sub) on every
// other instance, so a revoked session or a changed quota is never served from it. The TTL only bounds
// what a write inside a not-yet-committed transaction could leave behind.
export class ReadCache {
  private generation = 0;
  private readonly entries = new Map<string, { value: unknown; expiresAt: number }>();

  constructor(private readonly options: { maxEntries: number; ttlMs: number }) {}

  /** The entry for `key` when the cache holds it fresh (its value may be null: a row known not to exist). */
  peek<T>(key: string): { readonly value: T } | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt > Date.now() ? (hit as { value: T }) : undefined;
  }

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.value as T;
    const generation = this.generation;
    const value = await load();
    // A write that landed while loading may have made `value` stale: keep it out of the cache.
    if (generation === this.generation) {
      if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, expiresAt: Date.now() + this.options.ttlMs });
    }
    return value;
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
