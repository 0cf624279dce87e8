// Keeps one app's live release running on an orchestrator (RUNTIME=swarm) that does the rollouts itself: a
// deploy, a restart or new env vars update the app's service, and Swarm replaces its tasks start-first, each
// new one taking traffic once its health check passes, rolling back on a failure. Slipway watches the tasks:
// the running ones are the route's upstreams, their output goes to the app's runtime log, a task that fails is
// said there, and the app is CRASHED while none runs (Swarm's restart policy brings tasks back with a delay).
import type { SandboxLimits } from "../platform/runtime/types.ts";
import type { Rollout, ServiceTasks, SwarmOrchestrator, TaskView, Upstream } from "../platform/runtime/swarm/orchestrator.ts";
import { RolloutFailed } from "../platform/runtime/swarm/orchestrator.ts";
import { describeTaskError } from "../platform/runtime/swarm/rollout.ts";
import { processEnv, type WebProcess } from "./builders/types.ts";
import { DeployError } from "./errors.ts";
import { StartFailed } from "./health.ts";
import { buildAndRollOut, rollOutRelease } from "./deploy/pipeline.ts";
import type { DeployContext } from "./deploy/types.ts";
import type { Runner, StopStatus } from "./runner.ts";
import { FAILURE_OUTPUT_LINES } from "./health-log.ts";
import { processLog } from "./logs/sink.ts";
import { instanceLogOptions } from "./health-log.ts";
import type { HealthProbe } from "./health-settings.ts";
import type { Redact } from "./logs/redact.ts";
import type { LogStore } from "./logs/store.ts";
import type { MemoryRouteTable } from "./routes.ts";
import type { HostingState } from "./state.ts";
import type { ReplicaStatus } from "./replicas.ts";
import type { Release } from "./release.ts";
import path from "node:path";

export interface ServiceSupervisorDeps {
  orchestrator: SwarmOrchestrator;
  logs: LogStore;
  routes: MemoryRouteTable;
  state: HostingState;
  limits: SandboxLimits;
  /** Where the app's data directory appears in its tasks. */
  dataPath: string;
  envOf(appId: string): Promise<Record<string, string>>;
  dataDirOf(appId: string): string;
  redactorOf(appId: string): Redact;
  /** The health check of a release's tasks (Swarm runs it in each task; a change applies at the next rollout). */
  healthOf(appId: string, web: WebProcess | undefined): HealthProbe;
  onError(error: unknown, message: string): void;
  /** A process of the app crashed (notifications count crash loops). */
  crashed?(): void;
}

export class ServiceSupervisor implements Runner {
  readonly pipeline = { build: buildAndRollOut, rollback: rollOutRelease };

  private release: Release | null = null;
  private stopped = false;
  private serviceId: string | null = null;
  private upstreams: Upstream[] = [];
  private tasks: TaskView[] = [];
  /** A rollout is under way: the route follows the tasks, the status is the deployment's to set. */
  private rolling = 0;
  /** Tasks whose output is followed, and the ones already reported as failed. */
  private readonly following = new Map<string, AbortController>();
  private readonly reported = new Set<string>();
  private failures = 0;
  /** Bumped by every stop: a restart begun before it must not bring the app back. */
  private epoch = 0;
  private chain: Promise<void> = Promise.resolve();
  /** A rollout begun by a deployment and not yet completed. */
  private pending: { release: Release; rollout: Rollout | null; epoch: number } | null = null;
  /** Output before this (epoch seconds) is not read again: what an adopted task wrote before a platform restart is stored. */
  private logsFrom = 0;
  private status: "RUNNING" | "CRASHED" | null = null;
  /** What the route was last set to: a poll that changes nothing changes no route (nor the edge). */
  private published = "";

  constructor(
    private readonly deps: ServiceSupervisorDeps,
    readonly app: { id: string; slug: string },
    private wanted = 1,
  ) {}

  get liveRelease(): Release | null {
    return this.release;
  }

  get running(): boolean {
    return this.upstreams.length > 0 || this.release?.web.kind === "static";
  }

  get restarts(): number {
    return this.upstreams.length > 0 ? 0 : this.failures;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  get instances(): number {
    return this.wanted;
  }

  /** The tasks meant to run, as the app's details show them (web.1 … in the order Swarm created them). */
  processes(): ReplicaStatus[] {
    return this.tasks
      .filter((t) => t.desired === "running")
      .map((t, i) => ({
        index: i + 1,
        instanceId: t.id,
        state: t.upstream ? "healthy" : t.error ? "crashed" : t.state === "running" ? "unhealthy" : "starting",
        startedAt: t.createdAt ? new Date(t.createdAt) : null,
        restarts: this.failures,
      }));
  }

  want(instances: number): void {
    this.wanted = instances;
  }

  /** Rolls the release out as the app's service; resolves once every task of it passed its health check. */
  async rollout(release: Release, options: { log(line: string): void; signal?: AbortSignal; force?: boolean }): Promise<void> {
    await this.begin(release, options.log, options.force);
    await this.complete(options.log, options.signal);
  }

  /** Builds the release's image and asks Swarm to roll it out (a static site: Slipway serves it, no task runs). */
  async begin(release: Release, log: (line: string) => void, force = false): Promise<void> {
    if (release.web.kind === "static") {
      this.pending = { release, rollout: null, epoch: this.epoch };
      return log("A static site: Slipway serves its files, no task runs.");
    }
    this.rolling += 1;
    try {
      const rollout = await this.deps.orchestrator.begin(
        {
          appKey: this.app.id,
          slug: this.app.slug,
          deploymentId: release.deploymentId,
          // A rollback reuses the folder, and the image, of the deployment that built it.
          imageOf: path.basename(release.dir),
          dir: release.dir,
          argv: release.web.argv,
          healthPath: this.deps.healthOf(this.app.id, release.web).path,
          env: processEnv(release.web, await this.deps.envOf(this.app.id)),
          replicas: this.wanted,
          limits: this.deps.limits,
          dataDir: { host: this.deps.dataDirOf(this.app.id), inApp: this.deps.dataPath },
          force,
        },
        log,
      );
      this.pending = { release, rollout, epoch: this.epoch };
      // The new tasks' output and health are followed from their start.
      await this.attach();
    } catch (error) {
      this.rolling -= 1;
      throw error;
    }
  }

  /** Waits until Swarm completed the rollout begun: the release is then the live one. */
  async complete(log: (line: string) => void, signal?: AbortSignal): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    if (!pending.rollout) {
      this.pending = null;
      this.deps.routes.serve(this.app.slug, { kind: "static", root: path.resolve(pending.release.dir, (pending.release.web as { root: string }).root) });
      this.published = "";
      await this.deps.routes.flush();
      this.release = pending.release;
      this.stopped = false;
      await this.deps.orchestrator.scale(this.app.id, 0);
      return;
    }
    try {
      await this.deps.orchestrator.finish(pending.rollout, log, signal);
      this.release = pending.release;
      // A stop that came during the rollout keeps the app stopped.
      if (pending.epoch === this.epoch) this.stopped = false;
      this.failures = 0;
      await this.deps.orchestrator.watcher.poll();
      await this.deps.routes.flush();
    } catch (error) {
      if (error instanceof RolloutFailed) throw new StartFailed(error.message, await this.lastOutput(pending.release.deploymentId));
      throw error;
    } finally {
      this.pending = null;
      this.rolling -= 1;
    }
  }

  /** What the new release's tasks wrote last (followed into the runtime log under its deployment): a failed start keeps it. */
  private async lastOutput(deploymentId: string): Promise<{ stream: "stdout" | "stderr"; line: string }[]> {
    await this.deps.logs.flush();
    const lines = await this.deps.logs.query(this.app.id, { kind: "runtime", deploymentId, limit: FAILURE_OUTPUT_LINES * 2 });
    return lines.flatMap((l) => (l.stream === "system" ? [] : [{ stream: l.stream, line: l.line }])).slice(-FAILURE_OUTPUT_LINES);
  }

  get deployFields(): Pick<DeployContext, "service"> {
    return { service: this };
  }

  /** A deployment that failed or was canceled between begin and complete: Swarm goes back to what ran. */
  async abandon(): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    if (!pending.rollout) return;
    this.rolling -= 1;
    await this.deps.orchestrator.finish(pending.rollout, () => {}, AbortSignal.abort()).catch(() => {});
  }

  /** Resolves once the edge (EDGE=caddy) routes as the table says. */
  routesSettled(): Promise<void> {
    return this.deps.routes.flush();
  }

  /** After a platform restart: the service as it runs is adopted (its running tasks become the route). */
  async adopt(release: Release): Promise<boolean> {
    if (release.web.kind === "static" || !(await this.deps.orchestrator.serviceId(this.app.id))) return false;
    this.release = release;
    this.stopped = false;
    this.logsFrom = Math.floor(Date.now() / 1000);
    await this.deps.orchestrator.scale(this.app.id, this.wanted);
    await this.attach();
    await this.deps.orchestrator.watcher.poll();
    return true;
  }

  /** Rolls the release out again with the current env vars (restart, env change, after a restore). */
  async bringBack(release: Release): Promise<void> {
    const log = (line: string) => this.system(release.deploymentId, line);
    const epoch = this.epoch;
    try {
      // One after the other (two quick env changes: the second rolls out after the first, with both).
      await this.serially(async () => {
        if (this.epoch !== epoch) return;
        await this.rollout(release, { log, force: true });
        // A stop came meanwhile: it decides.
        if (this.epoch !== epoch) return this.deps.orchestrator.scale(this.app.id, 0);
        await this.deps.state.setAppStatus(this.app.id, "RUNNING", release.deploymentId);
      });
    } catch (error) {
      if (!(error instanceof DeployError)) this.deps.onError(error, `restarting app ${this.app.slug}`);
      log(`Restart failed: ${error instanceof DeployError ? error.message : "Slipway could not update the service (the platform's log says why)"}.`);
    }
  }

  /** New env vars: the next rollout (the engine's bringBack) has them. */
  envChanged(): void {}

  /** Scale to 0, keeping the service; the route says the app is stopped (or failed). */
  async stop(status: StopStatus = "STOPPED"): Promise<void> {
    this.stopped = true;
    this.epoch += 1;
    this.published = "";
    this.deps.routes.stopped(this.app.slug, status);
    await this.deps.routes.flush();
    await this.deps.orchestrator.scale(this.app.id, 0);
  }

  private serially(fn: () => Promise<void>): Promise<void> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => {});
    return next;
  }

  async scale(instances: number): Promise<void> {
    this.wanted = instances;
    if (!this.stopped && this.release?.web.kind !== "static") await this.deps.orchestrator.scale(this.app.id, instances);
  }

  /** The router could not reach a task: out of the route until the next poll says it runs. */
  unreachable(taskId: string, _why?: string): void {
    const left = this.upstreams.filter((u) => u.taskId !== taskId);
    if (left.length === this.upstreams.length || left.length === 0) return;
    this.upstreams = left;
    this.publish();
  }

  /** The service, its network and images; nothing is followed any more. */
  async remove(): Promise<void> {
    this.stopped = true;
    this.detach();
    await this.deps.orchestrator.remove(this.app.id);
  }

  /** Without `keep` the service scales to 0 (stopped, not removed: the next boot scales it up again). */
  async close(keep: boolean): Promise<void> {
    this.detach();
    if (!keep) await this.deps.orchestrator.scale(this.app.id, 0).catch(() => {});
  }

  private async attach(): Promise<void> {
    const id = await this.deps.orchestrator.serviceId(this.app.id);
    if (!id || id === this.serviceId) return;
    this.detach();
    this.serviceId = id;
    this.deps.orchestrator.watch(id, (tasks) => this.onTasks(tasks));
  }

  private detach(): void {
    if (this.serviceId) this.deps.orchestrator.unwatch(this.serviceId);
    this.serviceId = null;
    for (const follow of this.following.values()) follow.abort();
    this.following.clear();
  }

  private onTasks(state: ServiceTasks): void {
    this.tasks = state.tasks;
    for (const task of state.tasks) {
      this.followOutput(task);
      this.reportFailure(task);
    }
    this.upstreams = state.upstreams;
    if (this.stopped || this.release?.web.kind === "static") return;
    this.publish();
  }

  private publish(): void {
    const key = this.upstreams.map((u) => `${u.host}:${u.port}`).join(",") || (this.rolling === 0 && this.release ? "crashed" : "");
    if (key === this.published) return;
    this.published = key;
    if (this.upstreams.length > 0) {
      this.deps.routes.serve(this.app.slug, { kind: "proxy", upstreams: this.upstreams.map((u) => ({ host: u.host, port: u.port, id: u.taskId })) });
      this.setStatus("RUNNING");
    } else if (this.rolling === 0 && this.release) {
      this.deps.routes.unavailable(this.app.slug, "CRASHED");
      this.setStatus("CRASHED");
    }
  }

  private setStatus(status: "RUNNING" | "CRASHED"): void {
    if (this.rolling > 0 || this.status === status) return;
    this.status = status;
    void this.deps.state.setAppStatus(this.app.id, status).catch((error: unknown) => this.deps.onError(error, `recording app ${this.app.slug} as ${status}`));
  }

  /** Every task's stdout and stderr, from its start, once: into the runtime log of the deployment it runs. */
  private followOutput(task: TaskView): void {
    if (this.following.has(task.id) || ["new", "pending", "assigned", "accepted", "preparing", "ready"].includes(task.state)) return;
    const abort = new AbortController();
    this.following.set(task.id, abort);
    const healthPath = () => this.deps.healthOf(this.app.id, (this.pending?.release ?? this.release)?.web).path;
    const log = processLog(this.deps.logs, { appId: this.app.id, kind: "runtime", deploymentId: task.deploymentId }, () => this.deps.redactorOf(this.app.id), instanceLogOptions(healthPath));
    this.deps.orchestrator
      .followLogs(task.id, log.sink, { since: Math.max(Math.floor(Date.parse(task.createdAt) / 1000) || 0, this.logsFrom), signal: abort.signal })
      .catch((error: unknown) => {
        if (!abort.signal.aborted) this.deps.onError(error, `following the output of task ${task.id}`);
      })
      .finally(() => log.end());
  }

  private reportFailure(task: TaskView): void {
    if (!task.error || this.reported.has(task.id) || (task.state !== "failed" && task.state !== "rejected")) return;
    this.reported.add(task.id);
    this.failures += 1;
    this.system(task.deploymentId, `Crashed: task ${task.id.slice(0, 10)} ${describeTaskError(task)}. Swarm starts another (failure ${this.failures} in a row).`);
    this.deps.crashed?.();
  }

  private system(deploymentId: string | null, line: string): void {
    this.deps.logs.append(this.app.id, { kind: "runtime", stream: "system", deploymentId, line });
  }
}
