// Health checks never reach the app's runtime log. An app that logs its requests writes a line per check; the
// collector drops a line the app wrote when it
//   1. contains the checks' user agent, slipway-health-check (combined-format access logs, or any that print it), or
//   2. with a health-check path, reads as an access-log entry for it: "GET <path>" followed by a space, a quote or
//      the end of the line (`GET /healthz 200 1.2 ms`, `"GET /healthz HTTP/1.1" 200`), so /healthzone is kept.
// A TCP check sends no request, so it leaves nothing to drop.
import { HEALTH_CHECK_USER_AGENT } from "./health.ts";

/** The last lines of a starting instance's output that a failed start keeps (Deployment.failureOutput). */
export const FAILURE_OUTPUT_LINES = 20;

/** A running instance's log: without the lines of its health checks, keeping its last lines for a failed start. */
export function instanceLogOptions(path: () => string | null) {
  return { drop: healthCheckLines(path), keep: FAILURE_OUTPUT_LINES };
}

/** Whether a line of the app's output logs one of its health checks; `path` is read for each line, as settings change. */
export function healthCheckLines(path: () => string | null): (line: string) => boolean {
  let cached: { path: string; pattern: RegExp } | null = null;
  return (line) => {
    if (line.includes(HEALTH_CHECK_USER_AGENT)) return true;
    const current = path();
    if (current === null) return false;
    if (cached?.path !== current) cached = { path: current, pattern: new RegExp(`\\bGET ${escapeRegExp(current)}(?=[\\s"]|$)`) };
    return cached.pattern.test(line);
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
