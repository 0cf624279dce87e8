// Which health check an app's instances get: the app's own setting (App.healthcheck), else its release's app.json
// (kept in Deployment.web, so a rollback keeps it), else the platform's default (HEALTH_CHECK_*: a TCP connect).
// With a path, an HTTP GET of it, a 2xx or 3xx status passing; without one, a TCP connect to PORT.
import type { WebProcess } from "./builders/types.ts";

/** As stored (App.healthcheck, WebProcess.healthcheck) and as app.json and the API give it, defaults filled in. */
export interface HealthCheckSpec {
  path: string | null;
  intervalSeconds: number;
  timeoutSeconds: number;
}

export type HealthCheckSource = "app" | "app.json" | "default";

/** What the start check and the periodic check do. */
export interface HealthProbe {
  path: string | null;
  intervalMs: number;
  timeoutMs: number;
  source: HealthCheckSource;
}

export const DEFAULT_INTERVAL_SECONDS = 5;
export const DEFAULT_TIMEOUT_SECONDS = 2;
const FIELDS = new Set(["path", "intervalSeconds", "timeoutSeconds"]);

/** What is wrong with a healthcheck object, field by field (empty: nothing). */
export function healthCheckProblems(value: unknown): { field: string; message: string }[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [{ field: "healthcheck", message: 'Give an object such as {"path": "/healthz", "intervalSeconds": 5, "timeoutSeconds": 2}, or null.' }];
  const input = value as Record<string, unknown>;
  const problems = Object.keys(input)
    .filter((key) => !FIELDS.has(key))
    .map((key) => ({ field: `healthcheck.${key}`, message: "Unknown field: use path, intervalSeconds and timeoutSeconds." }));
  const path = input.path;
  const interval = input.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS;
  const intervalOk = wholeIn(interval, 1, 300);
  const timeout = input.timeoutSeconds ?? defaultTimeout(intervalOk ? interval : DEFAULT_INTERVAL_SECONDS);
  if (path != null && (typeof path !== "string" || !/^\/[\x21-\x7e]{0,199}$/.test(path))) {
    problems.push({ field: "healthcheck.path", message: 'Give a path that starts with "/", such as /healthz (no spaces, at most 200 characters), or null for a TCP check.' });
  }
  if (!intervalOk) problems.push({ field: "healthcheck.intervalSeconds", message: "Use a whole number of seconds from 1 to 300." });
  if (!wholeIn(timeout, 1, 60)) problems.push({ field: "healthcheck.timeoutSeconds", message: "Use a whole number of seconds from 1 to 60." });
  else if (intervalOk && (timeout as number) > (interval as number)) {
    problems.push({ field: "healthcheck.timeoutSeconds", message: `Use a timeout no longer than the interval (${interval as number} s).` });
  }
  return problems;
}

/** A valid healthcheck object (see healthCheckProblems) with its defaults filled in. */
export function toHealthCheckSpec(value: Record<string, unknown>): HealthCheckSpec {
  return {
    path: (value.path as string | null | undefined) ?? null,
    intervalSeconds: (value.intervalSeconds as number | null | undefined) ?? DEFAULT_INTERVAL_SECONDS,
    timeoutSeconds: (value.timeoutSeconds as number | null | undefined) ?? defaultTimeout(value.intervalSeconds ?? DEFAULT_INTERVAL_SECONDS),
  };
}

/** Unset, the timeout is the default one, or the interval when that is shorter. */
function defaultTimeout(interval: unknown): number {
  return typeof interval === "number" ? Math.min(DEFAULT_TIMEOUT_SECONDS, interval) : DEFAULT_TIMEOUT_SECONDS;
}

export function effectiveHealthCheck(own: unknown, web: WebProcess | null | undefined, defaults: { intervalMs: number; timeoutMs: number }): HealthProbe {
  const fromRelease = web?.kind === "process" ? web.healthcheck : undefined;
  const spec = (own as HealthCheckSpec | null) ?? fromRelease;
  if (!spec) return { path: null, ...defaults, source: "default" };
  return { path: spec.path, intervalMs: spec.intervalSeconds * 1000, timeoutMs: spec.timeoutSeconds * 1000, source: own ? "app" : "app.json" };
}

/** What a check does, in words for the logs: "GET /healthz" or "a TCP connect to PORT". */
export function describeProbe(probe: { path: string | null }): string {
  return probe.path ? `GET ${probe.path}` : "a TCP connect to PORT";
}

function wholeIn(value: unknown, min: number, max: number): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

/** The apps' own settings, in memory: the checks read them on every run, so a change applies to running instances. */
export class HealthSettings {
  private readonly own = new Map<string, HealthCheckSpec | null>();

  constructor(private readonly defaults: { intervalMs: number; timeoutMs: number }) {}

  set(appId: string, spec: unknown): void {
    this.own.set(appId, (spec as HealthCheckSpec | null) ?? null);
  }

  forget(appId: string): void {
    this.own.delete(appId);
  }

  of(appId: string, web: WebProcess | null | undefined): HealthProbe {
    return this.resolve(this.own.get(appId) ?? null, web);
  }

  /** For an app's own setting as stored and its live release's web process (Deployment.web). */
  resolve(own: unknown, web: unknown): HealthProbe {
    return effectiveHealthCheck(own, web as WebProcess | null | undefined, this.defaults);
  }
}
