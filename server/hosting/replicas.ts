// The instances of one release: an app scaled to N runs N copies of its web process, each a separate
// instance of the runtime driver (its own PORT, its own log prefix web.1, web.2, …, like Heroku's dynos).
// The route goes to the healthy ones; when none is healthy but some still run, to every running one (an
// instance failing its checks may still answer better than a 503 page, as nginx does with all upstreams down).
import path from "node:path";
import type { Instance, ReleaseRef } from "../platform/runtime/types.ts";
import type { Upstream } from "./router/types.ts";
import type { ProcessLog } from "./logs/sink.ts";
import type { ProcessCommands, WebProcess } from "./builders/types.ts";
import type { Release } from "./release.ts";
import { nextWebState, type WebEvent, type WebState } from "./processes/instance-states.ts";

export interface Replica {
  /** 1-based: web.1, web.2, … */
  index: number;
  instance: Instance;
  log: ProcessLog;
  startedAt: number;
  /** Moved only by moveReplica(), along WEB_TRANSITIONS. */
  state: WebState;
  /** Health checks failed in a row. */
  failures: number;
  /** How its process exited, once it did (even before it took traffic). */
  exit?: string;
}

/** What the GraphQL App.processes field shows of each instance. */
export interface ReplicaStatus {
  index: number;
  instanceId: string;
  state: Exclude<WebState, "exited"> | "crashed";
  startedAt: Date | null;
  /** Failures in a row of this instance (exits, starts that did not answer). */
  restarts: number;
}

export const replicaName = (index: number) => `web.${index}`;

export function alive(replica: Replica | undefined): replica is Replica {
  return !!replica && replica.state !== "exited";
}

/** Moves the replica along WEB_TRANSITIONS; false when its state ignores the event. */
export function moveReplica(replica: Replica, event: WebEvent): boolean {
  const next = nextWebState(replica.state, event);
  if (!next) return false;
  replica.state = next;
  return true;
}

/** Where the router sends requests: the healthy instances, or every running one when none is. */
export function upstreamsOf(replicas: readonly (Replica | undefined)[]): Upstream[] {
  const running = replicas.filter(alive);
  const healthy = running.filter((r) => r.state === "healthy");
  return (healthy.length ? healthy : running).map((r) => ({ host: r.instance.target.host, port: r.instance.target.port, id: r.instance.instanceId }));
}

/** from, from + 1, …, to (empty when to < from). */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

export function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** The release a folder holds: named after the deployment that built it (a rollback reuses its folder, and its image). */
export function releaseRef(slug: string, dir: string): ReleaseRef {
  return { slug, deploymentId: path.basename(dir) };
}

/** The release a deployment row keeps on disk, or null when it has none (never built, or pruned). */
export function releaseOf(deployment: { id: string; releasePath: string | null; web: unknown; processes?: unknown } | null | undefined): Release | null {
  if (!deployment?.releasePath || !deployment.web) return null;
  const processes = deployment.processes ? { processes: deployment.processes as ProcessCommands } : {};
  return { deploymentId: deployment.id, dir: deployment.releasePath, web: deployment.web as WebProcess, ...processes };
}
