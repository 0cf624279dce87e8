// A new instance is healthy once it answers HTTP on its port (any status: the app decides what / means).
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { ExitInfo, Instance } from "../platform/runtime/types.ts";
import { DeployError } from "./errors.ts";

const RETRY_MS = 20;
const ATTEMPT_TIMEOUT_MS = 2000;

/** One HTTP GET / (any status counts): the start check, and the periodic check of every running instance. */
export function answers(host: string, port: number, timeoutMs = ATTEMPT_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get({ host, port, path: "/", agent: false, timeout: timeoutMs, headers: { "user-agent": "slipway-health-check" } }, () => {
      resolve(true);
      // Headers are enough: a streaming answer must not hold the check open.
      request.destroy();
    });
    request.once("timeout", () => request.destroy());
    request.once("error", () => resolve(false));
  });
}

export async function waitUntilAnswering(instance: Instance, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  let exit: ExitInfo | null = null;
  void instance.exited.then((info) => (exit = info));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (exit) throw new DeployError(`The app exited (${describeExit(exit)}) before answering HTTP on its PORT.`);
    if (await answers(instance.target.host, instance.target.port)) return;
    await sleep(RETRY_MS);
  }
  throw new DeployError(`The app did not answer HTTP on its PORT within ${Math.round(timeoutMs / 1000)} s. It must listen on the port given in the PORT variable.`);
}

export function describeExit(exit: ExitInfo): string {
  if (exit.signal) return exit.signal === "SIGKILL" ? "killed: out of memory, or over a limit" : `signal ${exit.signal}`;
  return `exit code ${exit.code}`;
}
