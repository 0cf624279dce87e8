// What keeps an app awake (Activity), on a clock the test sets: requests and open streams here, and other instances'
// reports, which carry ages (their clocks may differ) and whose open streams count only while reports keep coming.
import { describe, expect, it } from "vitest";
import { Activity, REPORT_KEPT_MS } from "../../../server/hosting/sleep/activity.ts";

describe("an app's activity", () => {
  it("counts requests and open streams here, never below zero, a closed stream as a request", () => {
    let now = 1_000;
    const activity = new Activity(() => now);
    expect(activity.lastRequestAt("a")).toBeUndefined();
    activity.touch("a");
    activity.opened("a");
    activity.opened("a");
    expect(activity.openSockets("a")).toBe(2);
    now = 5_000;
    activity.closed("a");
    activity.closed("a");
    activity.closed("a");
    expect(activity.openSockets("a")).toBe(0);
    expect(activity.lastRequestAt("a")).toBe(5_000);
  });

  it("merges another instance's report as ages on its own clock, and forgets its open streams once reports stop", () => {
    let follower = 900_000;
    const there = new Activity(() => follower);
    there.touch("a");
    there.opened("a");
    follower += 2_000;
    const report = there.report();
    expect(report).toEqual([["a", 2_000, 1]]);

    let leader = 50_000;
    const here = new Activity(() => leader);
    here.merge("follower-1", report);
    expect(here.lastRequestAt("a")).toBe(48_000);
    expect(here.openSockets("a")).toBe(1);
    // A newer report of the same instance replaces it.
    here.merge("follower-1", [["a", 10, 0]]);
    expect(here.openSockets("a")).toBe(0);
    here.merge("follower-1", [["a", 10, 3]]);
    leader += REPORT_KEPT_MS;
    expect(here.openSockets("a")).toBe(0);
    expect(here.lastRequestAt("a")).toBe(50_000 - 10);
  });
});
