// Waits for a service update (or a new service's first tasks) to end, telling the deploy log what Swarm
// does with the new release's tasks as it happens. Swarm decides: a start-first update proceeds task by
// task once each new one passes its health check, and rolls back on its own when one fails.
import { setTimeout as sleep } from "node:timers/promises";
import type { Docker } from "../docker/client.ts";
import type { ServiceTasks, TaskView, TaskWatcher } from "./tasks.ts";

export class RolloutFailed extends Error {}

export interface RolloutWait {
  serviceId: string;
  deploymentId: string;
  replicas: number;
  /** UpdateStatus.StartedAt before this update was asked for ("" for a new service). */
  previousStart: string | null;
  deadline: number;
  log(line: string): void;
  signal?: AbortSignal;
}

const POLL_MS = 300;
/** A new service whose tasks failed this many times has no release to roll back to: it failed. */
const CREATE_FAILURES = 3;

/** An update Swarm has nothing to roll (the service was scaled to 0) sets no new UpdateStatus: past this, serving tasks settle it. */
const NO_UPDATE_MS = 3000;

export async function waitForRollout(docker: Docker, watcher: TaskWatcher, wait: RolloutWait): Promise<void> {
  const began = Date.now();
  const seen = new Map<string, string>();
  let lastMessage = "";
  for (;;) {
    wait.signal?.throwIfAborted();
    const service = (await docker.getService(wait.serviceId).inspect()) as {
      Spec?: { Mode?: { Replicated?: { Replicas?: number } } };
      UpdateStatus?: { State?: string; StartedAt?: string; Message?: string };
    };
    // A stop scaled the service to 0 meanwhile (a database restore stops the app): nothing is left to roll out, and
    // the update Swarm had begun never completes. The stop decides what runs.
    if (wait.replicas > 0 && service.Spec?.Mode?.Replicated?.Replicas === 0) return;
    const tasks = await listServiceTasks(docker, watcher, wait.serviceId);
    const mine = tasks.tasks.filter((t) => t.deploymentId === wait.deploymentId);
    for (const task of mine) reportTask(task, seen, wait.log);
    const status = service.UpdateStatus;
    const current = status && status.StartedAt !== wait.previousStart ? status : null;
    if (current?.Message && current.Message !== lastMessage) wait.log(`Swarm: ${(lastMessage = current.Message)}.`);
    if (wait.previousStart === null || !current) {
      // A new service (or an update Swarm has not picked up yet): done once every replica of this release serves.
      const serving = mine.filter((t) => t.upstream).length;
      if ((wait.previousStart === null || Date.now() - began > NO_UPDATE_MS) && serving >= wait.replicas) return;
      const failures = mine.filter((t) => t.state === "failed" || t.state === "rejected");
      if (wait.previousStart === null && failures.length >= CREATE_FAILURES) throw new RolloutFailed(failureReason(failures));
    } else if (current.State === "completed") {
      return;
    } else if (current.State === "rollback_completed" || current.State === "rollback_paused" || current.State === "paused") {
      const failures = mine.filter((t) => t.error);
      throw new RolloutFailed(`${failureReason(failures)}. Swarm rolled the service back: the previous release keeps serving.`);
    }
    if (Date.now() > wait.deadline) throw new RolloutFailed("The new release's tasks did not all pass their health check in time (it must listen on its PORT, and answer its health-check path with 2xx or 3xx if it has one).");
    await sleep(POLL_MS);
  }
}

async function listServiceTasks(docker: Docker, watcher: TaskWatcher, serviceId: string): Promise<ServiceTasks> {
  return watcher.snapshot(serviceId, await docker.listTasks({ filters: { service: [serviceId] } } as object));
}

function reportTask(task: TaskView, seen: Map<string, string>, log: (line: string) => void): void {
  const state = task.upstream ? "serving" : task.state;
  if (seen.get(task.id) === state) return;
  seen.set(task.id, state);
  const name = `task ${task.id.slice(0, 10)}`;
  if (task.upstream) return log(`${name} passed its health check: serving at ${task.upstream.host}:${task.upstream.port}.`);
  if (task.error) return log(`${name} ${task.state}: ${describeTaskError(task)}.`);
  if (["starting", "running", "shutdown", "complete"].includes(task.state)) log(`${name} ${task.state === "starting" ? "started, waiting for its health check" : task.state}.`);
}

export function describeTaskError(task: TaskView): string {
  if (task.exitCode !== null && task.exitCode !== 0 && /non-zero exit/.test(task.error ?? "")) return `exited (exit code ${task.exitCode})`;
  return task.error ?? "failed";
}

function failureReason(failures: TaskView[]): string {
  const last = failures.at(-1);
  if (!last) return "The new release did not pass its health check (it must listen on its PORT, and answer its health-check path with 2xx or 3xx if it has one)";
  const unhealthy = /unhealthy|health/i.test(last.error ?? "");
  return unhealthy
    ? "The new release did not pass its health check on its PORT"
    : `The new release's task failed: ${describeTaskError(last)}`;
}
