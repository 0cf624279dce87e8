import { Redis } from "ioredis";
import { bucketSize } from "./buckets.ts";
import type { Counter, CounterStore, Take, TakeRule } from "./types.ts";

// One log per key, grouped as buckets.ts says: a sorted set of groups (member and score: the moment they leave
// their window) and a hash of each group's hits, with `n` their total. Redis's own clock (TIME) is the only
// clock, so instances with skewed clocks agree. Drops the groups that left, then adds `weight` hits if `limit`
// allows (limit < 0: always; weight 0: only reads). Answers {allowed, count, ms until the oldest group leaves,
// ms until `weight` more would fit (-1: never)}.
const HITS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window, limit, weight, size = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local count = tonumber(redis.call('HGET', KEYS[2], 'n') or '0')
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
if #gone > 0 then
  for _, group in ipairs(gone) do count = count - tonumber(redis.call('HGET', KEYS[2], group) or '0') end
  redis.call('HDEL', KEYS[2], unpack(gone))
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  redis.call('HSET', KEYS[2], 'n', count)
end
local allowed = limit < 0 or count + weight <= limit
if allowed and weight > 0 then
  local leave = math.ceil((now + window) / size) * size
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  if last[2] and tonumber(last[2]) > leave then leave = tonumber(last[2]) end
  local group = string.format('%d', leave)
  redis.call('ZADD', KEYS[1], group, group)
  redis.call('HINCRBY', KEYS[2], group, weight)
  count = redis.call('HINCRBY', KEYS[2], 'n', weight)
  redis.call('PEXPIREAT', KEYS[1], group)
  redis.call('PEXPIREAT', KEYS[2], group)
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)
local resetIn = oldest[1] and tonumber(oldest[1]) - now or window
local retryIn = 0
if not allowed then
  retryIn = -1
  local mustLeave, left = count + weight - limit, 0
  for _, group in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    left = left + tonumber(redis.call('HGET', KEYS[2], group))
    if left >= mustLeave then
      retryIn = tonumber(group) - now
      break
    end
  end
end
return {allowed and 1 or 0, count, resetIn, retryIn}`;

type HitsReply = [allowed: number, count: number, resetIn: number, retryIn: number];
type WithHits = Redis & { slipwayHits(groups: string, hits: string, windowMs: number, limit: number, weight: number, size: number): Promise<HitsReply> };

export class RedisCounterStore implements CounterStore {
  private readonly redis: WithHits;

  constructor(url: string, private readonly prefix: string) {
    const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
    redis.defineCommand("slipwayHits", { numberOfKeys: 2, lua: HITS }); // EVALSHA, falling back to EVAL once
    this.redis = redis as WithHits;
  }

  async increment(key: string, windowMs: number): Promise<Counter> {
    const [, count, resetIn] = await this.hits(key, windowMs, -1, 1);
    return { count, resetAt: Date.now() + resetIn };
  }

  async peek(key: string): Promise<Counter | null> {
    const [, count, resetIn] = await this.hits(key, 0, -1, 0);
    return count === 0 ? null : { count, resetAt: Date.now() + resetIn };
  }

  async take(key: string, { limit, windowMs, weight = 1 }: TakeRule): Promise<Take> {
    const [allowed, count, resetIn, retryIn] = await this.hits(key, windowMs, limit, weight);
    const now = Date.now();
    return { allowed: allowed === 1, count, resetAt: now + resetIn, retryAt: retryIn < 0 ? Infinity : now + retryIn };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key, `${this.prefix}${key}:hits`);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private hits(key: string, windowMs: number, limit: number, weight: number): Promise<HitsReply> {
    return this.redis.slipwayHits(this.prefix + key, `${this.prefix}${key}:hits`, windowMs, limit, weight, bucketSize(windowMs));
  }
}
