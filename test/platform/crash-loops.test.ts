// A crash loop is one app.crashed: the 5th crash within 10 minutes raises it, later crashes of the same loop do
// not, 10 quiet minutes end the loop, and a release going live starts the count again.
import { describe, expect, it } from "vitest";
import { CrashLoops } from "../../server/notifications/crash-loop.ts";

describe("crash loops", () => {
  const minutes = (n: number) => n * 60_000;

  it("raises at the 5th crash within 10 minutes, once per loop", () => {
    let now = 0;
    const loops = new CrashLoops({ now: () => now });
    const raised = [];
    for (let i = 0; i < 12; i++) {
      raised.push(loops.crashed("a"));
      now += minutes(2); // one every 2 minutes: 5 within 10 minutes, and the loop never goes quiet
    }
    expect(raised.indexOf(true)).toBe(4);
    expect(raised.filter(Boolean)).toHaveLength(1);
  });

  it("does not raise for crashes spread wider than 10 minutes", () => {
    let now = 0;
    const loops = new CrashLoops({ now: () => now });
    const raised = Array.from({ length: 10 }, () => {
      const r = loops.crashed("a");
      now += minutes(3);
      return r;
    });
    expect(raised.some(Boolean)).toBe(false);
  });

  it("raises again for a new loop after 10 quiet minutes, or after a reset; apps are counted apart", () => {
    let now = 0;
    const loops = new CrashLoops({ now: () => now });
    const burst = (app: string) => Array.from({ length: 5 }, () => loops.crashed(app)).filter(Boolean).length;
    expect(burst("a")).toBe(1);
    expect(burst("b")).toBe(1);
    expect(burst("a")).toBe(0);
    now += minutes(10);
    expect(burst("a")).toBe(1);
    loops.reset("a");
    expect(burst("a")).toBe(1);
  });
});
