import { MemoryCounterStore } from "./memory.ts";
import { RedisCounterStore } from "./redis.ts";
import type { CounterStore } from "./types.ts";

export type { Counter, CounterStore, Take, TakeRule } from "./types.ts";

// "hits:" rather than the fixed windows' "rl:": keys a previous version left are of another Redis type.
export function createCounterStore(redisUrl: string | undefined, keyPrefix: string): CounterStore {
  return redisUrl ? new RedisCounterStore(redisUrl, `${keyPrefix}hits:`) : new MemoryCounterStore();
}
