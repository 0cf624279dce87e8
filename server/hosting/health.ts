// An instance is healthy once it passes its health check (health-settings.ts): with a path, an HTTP GET of it that
// answers 2xx or 3xx; without, a TCP connect to its port. Checks go to the instance directly, never through the
// router, so they never count as the app's requests; they carry user-agent slipway-health-check (health-log.ts).
import http from "node:http";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { ExitInfo, Instance } from "../platform/runtime/types.ts";
import { DeployError } from "./errors.ts";
import { describeProbe } from "./health-settings.ts";
import type { LoggedLine } from "./logs/sink.ts";

/** Checks are retried after 2 ms, doubling up to 20 ms: most apps listen within a few ms of starting (Go, Node). */
const FIRST_RETRY_MS = 2;
const RETRY_MS = 20;
export const HEALTH_CHECK_USER_AGENT = "slipway-health-check";

export interface CheckResult {
  ok: boolean;
  /** What happened, for the logs: "answered 500", "refused the connection", … */
  detail: string;
}

/** One check of an instance. */
export function check(host: string, port: number, probe: { path: string | null; timeoutMs: number }): Promise<CheckResult> {
  return probe.path === null ? connects(host, port, probe.timeoutMs) : answers(host, port, probe.path, probe.timeoutMs);
}

function answers(host: string, port: number, path: string, timeoutMs: number): Promise<CheckResult> {
  return new Promise((resolve) => {
    const request = http.get({ host, port, path, agent: false, timeout: timeoutMs, headers: { "user-agent": HEALTH_CHECK_USER_AGENT } }, (res) => {
      const status = res.statusCode ?? 0;
      resolve({ ok: status >= 200 && status < 400, detail: `answered ${status}` });
      // Headers are enough: a streaming answer must not hold the check open.
      request.destroy();
    });
    request.once("timeout", () => {
      resolve({ ok: false, detail: `did not answer within ${timeoutMs} ms` });
      request.destroy();
    });
    request.once("error", (error) => resolve({ ok: false, detail: failureOf(error) }));
  });
}

function connects(host: string, port: number, timeoutMs: number): Promise<CheckResult> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: timeoutMs }, () => {
      resolve({ ok: true, detail: "accepted the connection" });
      socket.destroy();
    });
    socket.once("timeout", () => {
      resolve({ ok: false, detail: `did not accept the connection within ${timeoutMs} ms` });
      socket.destroy();
    });
    socket.once("error", (error) => resolve({ ok: false, detail: failureOf(error) }));
  });
}

function failureOf(error: NodeJS.ErrnoException): string {
  return error.code === "ECONNREFUSED" ? "refused the connection" : error.code === "ECONNRESET" ? "closed the connection" : `failed (${error.code ?? error.message})`;
}

/** A start that failed: what the instance wrote last goes with the error (Deployment.failureOutput). */
export class StartFailed extends DeployError {
  override name = "StartFailed";
  constructor(
    message: string,
    readonly output: LoggedLine[],
  ) {
    super(message);
  }
}

/** An instance being started (a Replica), with its log's last output lines. */
export interface Starting {
  instance: Instance;
  log: { recent(): LoggedLine[] };
}

/** Resolves once the instance passes its check; a StartFailed with its last output when it exits or runs out of time. */
export async function waitUntilHealthy(starting: Starting, probe: { path: string | null; timeoutMs: number }, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const { instance } = starting;
  let exit: ExitInfo | null = null;
  void instance.exited.then((info) => (exit = info));
  const deadline = Date.now() + timeoutMs;
  const what = probe.path ? `passing its health check (${describeProbe(probe)})` : "accepting connections on its PORT";
  let last: CheckResult | null = null;
  for (let retryMs = FIRST_RETRY_MS; Date.now() < deadline; retryMs = Math.min(retryMs * 2, RETRY_MS)) {
    signal?.throwIfAborted();
    if (exit) throw new StartFailed(`The app exited (${describeExit(exit)}) before ${what}.`, starting.log.recent());
    last = await check(instance.target.host, instance.target.port, probe);
    if (last.ok) return;
    await sleep(retryMs);
  }
  const seconds = Math.round(timeoutMs / 1000);
  const message = probe.path
    ? `The app did not pass its health check within ${seconds} s: ${describeProbe(probe)} ${last?.detail ?? "was not tried"} (2xx or 3xx passes).`
    : `The app did not accept connections on its PORT within ${seconds} s. It must listen on the port given in the PORT variable.`;
  throw new StartFailed(message, starting.log.recent());
}

export function describeExit(exit: ExitInfo): string {
  if (exit.signal) return exit.signal === "SIGKILL" ? "killed: out of memory, or over a limit" : `signal ${exit.signal}`;
  return `exit code ${exit.code}`;
}
