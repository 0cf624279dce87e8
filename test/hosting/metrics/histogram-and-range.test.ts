// The pieces of app metrics that need no server: latency histograms (percentiles within a bucket, merging by
// encoding) and the checks of a metrics range (defaults, the retention and 1000-point limits named).
import { describe, expect, it } from "vitest";
import { addEncoded, bucketOf, encodeHistogram, newHistogram, percentile } from "../../../server/hosting/metrics/latency.ts";
import { RequestCounts } from "../../../server/hosting/metrics/requests.ts";
import { parseMetricsRange } from "../../../server/services/metrics-range.ts";

const NOW = Date.parse("2031-03-01T12:34:56Z");

describe("latency histograms", () => {
  it("give percentiles within about 8%, and merge exactly through their encoding", () => {
    const a = newHistogram();
    const b = newHistogram();
    for (let ms = 1; ms <= 100; ms++) (ms <= 50 ? a : b)[bucketOf(ms)]++;
    const merged = newHistogram();
    addEncoded(merged, encodeHistogram(a));
    addEncoded(merged, encodeHistogram(b));
    expect(percentile(merged, 0.5)! / 50).toBeGreaterThanOrEqual(1);
    expect(percentile(merged, 0.5)! / 50).toBeLessThan(1.09);
    expect(percentile(merged, 0.95)! / 95).toBeLessThan(1.09);
    expect(percentile(newHistogram(), 0.5)).toBeNull();
    expect(bucketOf(10 * 60_000)).toBe(newHistogram().length - 1);
  });

  it("count what the router recorded until drained", () => {
    const counts = new RequestCounts();
    for (const status of [200, 204, 404, 500, 502]) counts.record("a", status, 3);
    const drained = counts.drain().get("a")!;
    expect([drained.requests, drained.errors]).toEqual([5, 2]);
    expect(counts.drain().size).toBe(0);
  });
});

describe("metrics ranges", () => {
  it("default to the last hour at one point a minute, on whole minutes", () => {
    const range = parseMetricsRange({}, NOW, 7);
    expect(new Date(range.to).toISOString()).toBe("2031-03-01T12:35:00.000Z");
    expect(new Date(range.from).toISOString()).toBe("2031-03-01T11:35:00.000Z");
    expect([range.stepMs, range.points]).toEqual([60_000, 60]);
    expect(parseMetricsRange({ from: "2031-02-23T12:35:00Z" }, NOW, 7).stepMs).toBe(30 * 60_000);
    expect(parseMetricsRange({ step: "1h", from: "2031-03-01T00:00:00Z" }, NOW, 7).points).toBe(13);
  });

  it("refuse bad times and steps, naming the field, and ranges past the limits, naming the limit", () => {
    expect(() => parseMetricsRange({ from: "noon" }, NOW, 7)).toThrow(/from is not an ISO 8601 time/);
    expect(() => parseMetricsRange({ to: "2031-13-45" }, NOW, 7)).toThrow(/to is not an ISO 8601 time/);
    expect(() => parseMetricsRange({ step: "90" }, NOW, 7)).toThrow(/whole number of minutes/);
    expect(() => parseMetricsRange({ step: "0" }, NOW, 7)).toThrow(/whole number of minutes/);
    expect(() => parseMetricsRange({ from: "2031-02-20T00:00:00Z" }, NOW, 7)).toThrow(/kept for 7 days \(METRICS_RETENTION_DAYS\)/);
    expect(() => parseMetricsRange({ from: "2031-02-27T00:00:00Z", step: "60" }, NOW, 7)).toThrow(/At most 1000 points/);
    expect(parseMetricsRange({ from: "2031-02-28T20:00:00Z", step: "1m" }, NOW, 7).points).toBeLessThanOrEqual(1000);
  });
});
