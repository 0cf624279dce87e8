// What keeps an app's live release running, whatever runs it: Slipway's own supervisor (supervisor.ts: local and
// docker instances) or an orchestrator's service (service-supervisor.ts: Swarm). The engine speaks only this
// contract; each implementation decides how its runtime does each thing, so no caller branches on which it is.
import type { DeployContext, Step } from "./deploy/types.ts";
import type { ReplicaStatus } from "./replicas.ts";
import type { Release } from "./release.ts";
import type { Candidate } from "./supervisor.ts";

export type StopStatus = "STOPPED" | "FAILED" | "SLEEPING";

export interface Runner {
  readonly app: { id: string; slug: string };
  readonly liveRelease: Release | null;
  readonly running: boolean;
  readonly isStopped: boolean;
  readonly restarts: number;
  processes(): ReplicaStatus[];
  /** How many web instances the next start runs. */
  want(instances: number): void;
  scale(instances: number): Promise<void>;
  /** The router could not reach this instance. */
  unreachable(instanceId: string, why: string): void;
  envChanged(): void;
  /** Starts the release again (a restart, new env vars, a boot with nothing to adopt). */
  bringBack(release: Release): Promise<void>;
  /** Stops serving; the route then shows `status`, or, SLEEPING, wakes the app on the next request. */
  stop(status?: StopStatus): Promise<void>;
  /**
   * After a platform restart, before the runtime reaps what no one took: takes over what an earlier platform left
   * running of `release`. False: nothing was, and the caller brings the release back.
   */
  adopt(release: Release): Promise<boolean>;
  /** The app is deleted: stops it and frees what its runtime holds for it. */
  remove(): Promise<void>;
  /** The platform shuts down: with `keep`, what serves keeps running for the next boot to adopt; else it stops. */
  close(keep: boolean): Promise<void>;
  /** A deployment that did not go live: undoes what it started (`candidate`: the instances it started, if any). */
  abandon(candidate?: Candidate): Promise<void>;
  /** The steps a deployment runs on this runner: a build, or a rollback to a kept release. */
  readonly pipeline: { build: Step[]; rollback: Step[] };
  /** What the pipeline's steps drive, in the deployment's context. */
  readonly deployFields: Pick<DeployContext, "supervisor" | "service">;
}
