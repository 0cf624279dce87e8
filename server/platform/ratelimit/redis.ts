import { Redis } from "ioredis";
import type { Counter, CounterStore } from "./types.ts";

// INCR and the expiry of a new window in one atomic round trip.
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}`;

export class RedisCounterStore implements CounterStore {
  private readonly redis: Redis;

  constructor(url: string, private readonly prefix: string) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  }

  async increment(key: string, windowMs: number): Promise<Counter> {
    const [count, ttl] = (await this.redis.eval(INCREMENT, 1, this.prefix + key, windowMs)) as [number, number];
    return { count, resetAt: Date.now() + (ttl > 0 ? ttl : windowMs) };
  }

  async peek(key: string): Promise<Counter | null> {
    const [count, ttl] = await Promise.all([this.redis.get(this.prefix + key), this.redis.pttl(this.prefix + key)]);
    return count === null || ttl <= 0 ? null : { count: Number(count), resetAt: Date.now() + ttl };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
