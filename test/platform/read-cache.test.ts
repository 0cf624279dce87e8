// The read cache that the guard peeks at without waiting: a hit (a row, or null for a row known not to exist),
// a miss, and nothing after a write has cleared it or its entry has expired.
import { describe, expect, it } from "vitest";
import { ReadCache } from "../../server/platform/read-cache.ts";

describe("ReadCache.peek", () => {
  it("tells a cached null from a miss, and finds nothing once cleared", async () => {
    const cache = new ReadCache({ maxEntries: 10, ttlMs: 60_000 });
    expect(cache.peek("session:a")).toBeUndefined();
    await cache.get("session:a", async () => ({ id: "a" }));
    await cache.get("session:none", async () => null);
    expect(cache.peek("session:a")).toMatchObject({ value: { id: "a" } });
    expect(cache.peek("session:none")).toMatchObject({ value: null });
    cache.clear();
    expect(cache.peek("session:a")).toBeUndefined();
    expect(cache.peek("session:none")).toBeUndefined();
  });

  it("finds nothing past the entry's time to live", async () => {
    const cache = new ReadCache({ maxEntries: 10, ttlMs: 1 });
    await cache.get("token:t", async () => ({ id: "t" }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(cache.peek("token:t")).toBeUndefined();
  });
});
