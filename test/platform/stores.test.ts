// The in-process and Redis backends behind the same interfaces must behave alike.
import { afterAll, describe, expect, it } from "vitest";
import { MemoryPubSub } from "../../server/platform/pubsub/memory.ts";
import { RedisPubSub } from "../../server/platform/pubsub/redis.ts";
import type { PubSub } from "../../server/platform/pubsub/index.ts";
import { MemoryCounterStore } from "../../server/platform/ratelimit/memory.ts";
import { bucketSize } from "../../server/platform/ratelimit/buckets.ts";
import { RedisCounterStore } from "../../server/platform/ratelimit/redis.ts";
import type { CounterStore } from "../../server/platform/ratelimit/index.ts";
import { REDIS_URL } from "../helpers/server.ts";

const prefix = `slipway-test-${process.pid}-${Date.now()}:`;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => Promise.all(closers.map((c) => c())));

const counterStores: [string, () => CounterStore][] = [
  ["memory", () => new MemoryCounterStore()],
  ["redis", () => new RedisCounterStore(REDIS_URL, `${prefix}rl:`)],
];

describe.each(counterStores)("%s counter store", (_name, make) => {
  const store = make();
  closers.push(() => store.close());

  it("counts hits within a window and starts again after it", async () => {
    expect(await store.peek("k1")).toBeNull();
    const first = await store.increment("k1", 200);
    const second = await store.increment("k1", 200);
    expect([first.count, second.count]).toEqual([1, 2]);
    expect(second.resetAt).toBeGreaterThan(Date.now());
    // A hit leaves its window at most one group (1% of the window) late, never early (buckets.ts).
    expect(second.resetAt).toBeLessThanOrEqual(Date.now() + 200 + bucketSize(200));
    expect((await store.peek("k1"))?.count).toBe(2);
    await new Promise((r) => setTimeout(r, 250));
    expect((await store.increment("k1", 200)).count).toBe(1);
  });

  it("resets a key", async () => {
    await store.increment("k2", 60_000);
    await store.reset("k2");
    expect(await store.peek("k2")).toBeNull();
  });
});

/** The largest number of admitted moments within any `span` ms. */
function busiestSpan(admitted: number[], span: number): number {
  let busiest = 0;
  for (let i = 0, j = 0; i < admitted.length; i++) {
    while (admitted[i] - admitted[j] >= span) j++;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
}

describe("rate limits across a window boundary (sliding window)", () => {
  it("memory: never admits more than the limit in any 60 s span, and admits the limit again once a minute has passed", async () => {
    let now = 1_000_000;
    const store = new MemoryCounterStore({ now: () => now });
    closers.push(() => store.close());
    const rule = { limit: 120, windowMs: 60_000 };
    const admitted: number[] = [];
    const attempt = async (at: number) => {
      now = at;
      if ((await store.take("boundary", rule)).allowed) admitted.push(at);
    };
    // One request opens the minute; 239 arrive in the 200 ms around its end (a fixed window let 240 through).
    await attempt(1_000_000);
    for (let i = 0; i < 119; i++) await attempt(1_059_900 + i);
    for (let i = 0; i < 120; i++) await attempt(1_060_100 + i);
    expect(admitted).toHaveLength(121); // 120 in the first minute, then the opening request's slot again
    // A steady client keeps getting exactly its limit per minute.
    for (let at = 1_060_300; at < 1_300_000; at += 100) await attempt(at);
    expect(busiestSpan(admitted, 60_000)).toBe(120);
    expect(admitted.filter((at) => at >= 1_120_000 && at < 1_180_000)).toHaveLength(120);
  });

  it("memory: a refusal says when the request would fit, counting its weight, and is not itself counted", async () => {
    let now = 0;
    const store = new MemoryCounterStore({ now: () => now });
    closers.push(() => store.close());
    const rule = { limit: 3, windowMs: 100_000 };
    for (const at of [0, 10_000, 20_000]) {
      now = at;
      expect((await store.take("retry", rule)).allowed).toBe(true);
    }
    now = 30_000;
    const refused = await store.take("retry", { ...rule, weight: 2 });
    expect(refused).toMatchObject({ allowed: false, count: 3, resetAt: 100_000, retryAt: 110_000 });
    expect((await store.take("retry", { ...rule, weight: 4 })).retryAt).toBe(Infinity);
    now = 109_999;
    expect((await store.take("retry", { ...rule, weight: 2 })).allowed).toBe(false);
    now = 110_000;
    expect(await store.take("retry", { ...rule, weight: 2 })).toMatchObject({ allowed: true, count: 3, resetAt: 120_000 });
  });

  it("redis: never admits more than the limit in any window, with several clients at once", async () => {
    const store = new RedisCounterStore(REDIS_URL, `${prefix}rl:`);
    closers.push(() => store.close());
    const rule = { limit: 10, windowMs: 1_000 };
    const start = Date.now();
    const admitted: number[] = [];
    const at = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, start + ms - Date.now())));
    const burst = async (size: number) => {
      const takes = await Promise.all(Array.from({ length: size }, () => store.take("boundary", rule)));
      const now = Date.now();
      for (const take of takes) if (take.allowed) admitted.push(now);
    };
    await burst(1);
    await at(900);
    await burst(20); // 9 fit
    await at(1_100);
    await burst(20); // only the opening request's slot is free again
    expect(admitted).toHaveLength(11);
    const refused = await store.take("boundary", rule);
    expect(refused.allowed).toBe(false);
    // The next slot frees when the burst at 900 ms leaves, a second after it was admitted.
    expect(refused.retryAt).toBeGreaterThan(start + 1_700);
    expect(refused.retryAt).toBeLessThanOrEqual(Date.now() + 1_000);
    // Spans a little shorter than the window, so the timing of the test itself cannot matter.
    expect(busiestSpan(admitted, 900)).toBeLessThanOrEqual(10);
  });
});

const pubsubs: [string, () => PubSub][] = [
  ["memory", () => new MemoryPubSub()],
  ["redis", () => new RedisPubSub(REDIS_URL, `${prefix}events:`)],
];

describe.each(pubsubs)("%s pub/sub", (_name, make) => {
  const pubsub = make();
  closers.push(() => pubsub.close());

  it("delivers payloads published after subscribing, in order, to every subscriber of the topic only", async () => {
    const a = await pubsub.subscribe("t1");
    const b = await pubsub.subscribe("t1");
    const other = await pubsub.subscribe("t2");
    await pubsub.publish("t1", { n: 1 });
    await pubsub.publish("t1", { n: 2 });
    expect([(await a.next()).value, (await a.next()).value]).toEqual([{ n: 1 }, { n: 2 }]);
    expect((await b.next()).value).toEqual({ n: 1 });
    await pubsub.publish("t2", "only t2");
    expect((await other.next()).value).toBe("only t2");
    for (const s of [a, b, other]) await s.return?.();
  });

  it("stops delivering after return(), even when ended before the first next()", async () => {
    const early = await pubsub.subscribe("t3");
    await early.return?.();
    const late = await pubsub.subscribe("t3");
    await pubsub.publish("t3", 1);
    expect((await late.next()).value).toBe(1);
    await late.return?.();
    expect((await late.next()).done).toBe(true);
  });
});
