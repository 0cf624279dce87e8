// The rules of health checks, without a server: which app log lines count as health-check noise (README, "Health
// checks"), and what a healthcheck object may hold.
import { describe, expect, it } from "vitest";
import { healthCheckLines } from "../../server/hosting/health-log.ts";
import { effectiveHealthCheck, healthCheckProblems, toHealthCheckSpec } from "../../server/hosting/health-settings.ts";

describe("the runtime log's health-check filter", () => {
  it("drops lines with the checks' user agent, and access-log lines for GET <path> only", () => {
    const withPath = healthCheckLines(() => "/healthz");
    const dropped = [
      '127.0.0.1 - - [28/Nov/2026:04:00:00 +0000] "GET /healthz HTTP/1.1" 200 2 "-" "slipway-health-check"',
      "GET /healthz 200 1.234 ms - 2",
      '"GET /healthz HTTP/1.1" 200',
      "GET /healthz",
      "INFO request from slipway-health-check to /anything",
    ];
    const kept = ["GET /healthzone 200", "GET /healthz/deep 200", "POST /healthz 200", "GET /healthz?full=1 200", "GET / 200", "healthz is fine"];
    for (const line of dropped) expect(withPath(line), line).toBe(true);
    for (const line of kept) expect(withPath(line), line).toBe(false);
    const tcp = healthCheckLines(() => null);
    expect(tcp("GET /healthz 200")).toBe(false);
    expect(tcp('"GET / HTTP/1.1" 200 "slipway-health-check"')).toBe(true);
  });

  it("follows a changed path, and treats the path as text, not a pattern", () => {
    let path = "/a.b";
    const drop = healthCheckLines(() => path);
    expect([drop("GET /a.b 200"), drop("GET /aXb 200")]).toEqual([true, false]);
    path = "/ready";
    expect([drop("GET /a.b 200"), drop("GET /ready 200")]).toEqual([false, true]);
  });
});

describe("a healthcheck object", () => {
  it("takes the defaults for what it leaves out, the timeout no longer than the interval", () => {
    expect(toHealthCheckSpec({})).toEqual({ path: null, intervalSeconds: 5, timeoutSeconds: 2 });
    expect(toHealthCheckSpec({ path: "/h", intervalSeconds: 1 })).toEqual({ path: "/h", intervalSeconds: 1, timeoutSeconds: 1 });
    expect(healthCheckProblems({ path: null, intervalSeconds: 300, timeoutSeconds: 60 })).toEqual([]);
  });

  it("names each bad field", () => {
    const fields = (value: unknown) => healthCheckProblems(value).map((p) => p.field);
    expect(fields({ path: "x", intervalSeconds: 0, timeoutSeconds: 61 })).toEqual(["healthcheck.path", "healthcheck.intervalSeconds", "healthcheck.timeoutSeconds"]);
    expect(fields({ path: "/ok", intervalSeconds: 2, timeoutSeconds: 3 })).toEqual(["healthcheck.timeoutSeconds"]);
    expect(fields({ path: "/" + "a".repeat(200) })).toEqual(["healthcheck.path"]);
    expect(fields({ path: "/a\nb" })).toEqual(["healthcheck.path"]);
    expect(fields({ intervalSeconds: 2.5 })).toEqual(["healthcheck.intervalSeconds"]);
    expect(fields({ intervalSeconds: 0 })).toEqual(["healthcheck.intervalSeconds"]);
    expect(fields({ extra: true })).toEqual(["healthcheck.extra"]);
    expect(fields([])).toEqual(["healthcheck"]);
  });

  it("the app's own wins over app.json's, which wins over the default", () => {
    const defaults = { intervalMs: 5000, timeoutMs: 2000 };
    const web = { kind: "process" as const, argv: [], healthcheck: { path: "/json", intervalSeconds: 3, timeoutSeconds: 1 } };
    expect(effectiveHealthCheck({ path: "/own", intervalSeconds: 10, timeoutSeconds: 2 }, web, defaults)).toEqual({ path: "/own", intervalMs: 10_000, timeoutMs: 2000, source: "app" });
    expect(effectiveHealthCheck(null, web, defaults)).toEqual({ path: "/json", intervalMs: 3000, timeoutMs: 1000, source: "app.json" });
    expect(effectiveHealthCheck(null, { kind: "process", argv: [] }, defaults)).toEqual({ path: null, ...defaults, source: "default" });
  });
});
