import { MemoryPubSub } from "./memory.ts";
import { RedisPubSub } from "./redis.ts";
import type { PubSub } from "./types.ts";

export type { PubSub } from "./types.ts";

export function createPubSub(redisUrl: string | undefined, keyPrefix: string): PubSub {
  return redisUrl ? new RedisPubSub(redisUrl, `${keyPrefix}events:`) : new MemoryPubSub();
}
