// A drain on the fake clock: lines go in batches, a full queue drops and counts instead of waiting, a failing
// receiver is retried with back-off and a batch it keeps refusing is dropped (counted) after MAX_TRIES.
import { describe, expect, it } from "vitest";
import { Drain, MAX_TRIES, type DrainTransport } from "../../server/drains/drain.ts";
import type { LogLineRecord } from "../../server/hosting/logs/store.ts";
import { FakeClock } from "../helpers/fake-clock.ts";

const lines = (n: number, from = 0): LogLineRecord[] =>
  Array.from({ length: n }, (_, i) => ({ timestamp: `t${from + i}`, kind: "runtime", stream: "stdout", deploymentId: null, line: `line ${from + i}` }));

function transport(fail: () => boolean) {
  const delivered: string[][] = [];
  const t: DrainTransport & { delivered: string[][] } = {
    batchLines: 100,
    lingerMs: 10,
    delivered,
    deliver: async (batch) => {
      if (fail()) throw new Error("connect ECONNREFUSED");
      delivered.push(batch.map((l) => l.line));
    },
    close: () => {},
  };
  return t;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("a drain", () => {
  it("delivers every line in order, in batches", async () => {
    const clock = new FakeClock(0);
    const t = transport(() => false);
    const drain = new Drain("drn_1", "syslog://x:1", t, clock);
    drain.enqueue(lines(250));
    await clock.advanceTo(10, settle);
    for (let i = 0; i < 5; i++) await settle();
    expect(t.delivered.map((b) => b.length)).toEqual([100, 100, 50]);
    expect(t.delivered.flat()).toEqual(lines(250).map((l) => l.line));
    expect(drain.sent).toBe(250);
    expect(drain.dropped).toBe(0);
  });

  it("drops and counts past its capacity, without waiting", () => {
    const clock = new FakeClock(0);
    const drain = new Drain("drn_1", "syslog://x:1", transport(() => true), clock, 1000);
    const started = performance.now();
    drain.enqueue(lines(5000));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(drain.waiting).toBe(1000);
    expect(drain.dropped).toBe(4000);
  });

  it("retries a failing receiver with back-off, then drops the batch it kept refusing", async () => {
    const clock = new FakeClock(0);
    let down = true;
    const t = transport(() => down);
    const drain = new Drain("drn_1", "syslog://x:1", t, clock);
    drain.enqueue(lines(150));
    await clock.advanceTo(10, settle);
    expect(drain.lastError).toBe("connect ECONNREFUSED");
    expect(drain.lastErrorAt).toEqual(new Date(10));
    // Back-off 1 s, 2 s, 4 s, 8 s between the five tries of the first batch.
    await clock.advanceTo(10 + 1000 + 2000 + 4000 + 8000, settle);
    expect(drain.dropped).toBe(100);
    expect(MAX_TRIES).toBe(5);
    down = false;
    await clock.advanceTo(60_000, settle);
    for (let i = 0; i < 5; i++) await settle();
    expect(t.delivered.flat()).toEqual(lines(50, 100).map((l) => l.line));
    expect(drain.sent).toBe(50);
  });
});
