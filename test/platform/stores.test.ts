// The in-process and Redis backends behind the same interfaces must behave alike.
import { afterAll, describe, expect, it } from "vitest";
import { MemoryPubSub } from "../../server/platform/pubsub/memory.ts";
import { RedisPubSub } from "../../server/platform/pubsub/redis.ts";
import type { PubSub } from "../../server/platform/pubsub/index.ts";
import { MemoryCounterStore } from "../../server/platform/ratelimit/memory.ts";
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
    expect(second.resetAt).toBeLessThanOrEqual(Date.now() + 200);
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
