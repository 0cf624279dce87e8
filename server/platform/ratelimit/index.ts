import { MemoryCounterStore } from "./memory.ts";
import { RedisCounterStore } from "./redis.ts";
import type { CounterStore } from "./types.ts";

export type { Counter, CounterStore } from "./types.ts";

export function createCounterStore(redisUrl: string | undefined, keyPrefix: string): CounterStore {
  return redisUrl ? new RedisCounterStore(redisUrl, `${keyPrefix}rl:`) : new MemoryCounterStore();
}
