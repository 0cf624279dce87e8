// Keeps one app's live release running as `instances` instances (web.1 … web.N). A new release takes traffic
// once every one of its instances passes its health check; the ones it replaces drain, then stop. An instance
// that exits on its own is restarted alone with exponential back-off, the others serving meanwhile
// (crash-recovery.ts); the app is CRASHED only while none serves. Scaling starts instances and adds them to the
// route once they answer, or takes them out of the route, drains and stops them. Runtime state (instances, crash
// counts, timers) lives here and in crash-recovery.ts, in memory, never in the database.
import type { WebProcess } from "./builders/types.ts";
import type { RuntimeDriver, SandboxLimits } from "../platform/runtime/types.ts";
import { DeployError } from "./errors.ts";
import { waitUntilHealthy } from "./health.ts";
import type { HealthProbe } from "./health-settings.ts";
import { HealthMonitor, type HealthCheckOptions } from "./health-monitor.ts";
import { alive, moveReplica, range, replicaName, upstreamsOf, type Replica, type ReplicaStatus } from "./replicas.ts";
import type { Clock } from "./clock.ts";
import { adoptReplicas, adoptedLine } from "./adoption.ts";

export { systemClock, type Clock } from "./clock.ts";
export type { Release } from "./release.ts";
import type { Release } from "./release.ts";
import type { Redact } from "./logs/redact.ts";
import type { LogStore } from "./logs/store.ts";
import type { MemoryRouteTable } from "./routes.ts";
import type { HostingState } from "./state.ts";
import path from "node:path";
import { CrashRecovery } from "./crash-recovery.ts";
import { spawnReplica } from "./spawn.ts";
import { buildAndRelease, restartRelease } from "./deploy/pipeline.ts";
import type { DeployContext } from "./deploy/types.ts";
import type { Runner, StopStatus } from "./runner.ts";

export interface SupervisorDeps {
  driver: RuntimeDriver;
  logs: LogStore;
  routes: MemoryRouteTable;
  state: HostingState;
  limits: SandboxLimits;
  startTimeoutMs: number;
  /** How long a replaced instance keeps serving the requests it already has. */
  drainMs: number;
  /** SIGTERM → SIGKILL. */
  stopGraceMs: number;
  backoff: { baseMs: number; maxMs: number; healthyAfterMs: number };
  healthCheck: HealthCheckOptions;
  /** The health check of a release's instances, as the app's settings say now. */
  healthOf(appId: string, web: WebProcess | undefined): HealthProbe;
  envOf(appId: string): Promise<Record<string, string>>;
  /** The app's own data directory, bound read-write into its processes (its SQLite databases). */
  dataDirOf(appId: string): string;
  redactorOf(appId: string): Redact;
  clock: Clock;
  /** Unexpected failures (for the operator's log, never the app's). */
  onError(error: unknown, message: string): void;
  /** A process of the app crashed (notifications count crash loops). */
  crashed?(): void;
}

export interface Candidate {
  release: Release;
  /** A static site's folder (Slipway serves it); null for a web process. */
  root: string | null;
  /** replicas[i] is web.(i+1); empty while that instance is being restarted. Its length is the instances wanted. */
  replicas: (Replica | undefined)[];
  startedAt: number;
  /** The app's env vars version it was started with. */
  envVersion: number;
}

export class AppSupervisor implements Runner {
  readonly pipeline = { build: buildAndRelease, rollback: restartRelease };

  private current: Candidate | null = null;
  /** The release to bring back after a failed start or a stop, while nothing is current. */
  private crashed: Release | null = null;
  private readonly recovery: CrashRecovery;
  private stopped = false;
  /** Bumped by every switch of the route and every stop: a relaunch started before one of them must not go live. */
  private epoch = 0;
  /** Counts relaunches: of several in flight, only the newest may go live (say, two env changes in a row). */
  private relaunches = 0;
  /** Bumped when the env vars change: an instance started with older ones is relaunched once it goes live. */
  private envVersion = 0;
  /** Whether the route last went to instances (null: not decided since the last switch or stop). */
  private serving: boolean | null = null;
  /** Scale changes, one at a time. */
  private scaling: Promise<void> = Promise.resolve();
  private readonly monitor: HealthMonitor;

  constructor(
    private readonly deps: SupervisorDeps,
    readonly app: { id: string; slug: string },
    /** Instances wanted (App.instances). */
    private wanted = 1,
  ) {
    this.monitor = new HealthMonitor(
      deps.healthCheck,
      deps.clock,
      () => deps.healthOf(app.id, this.current?.release.web),
      () => this.current?.replicas.filter(alive) ?? [],
      (replica, why) => {
        this.system(`${replicaName(replica.index)}: ${why}.`);
        this.publish();
      },
      // Its exit is a crash like any other: restarted after its back-off while the others serve.
      (replica, why) => {
        this.system(`${replicaName(replica.index)}: ${why}.`);
        void replica.instance.stop(this.deps.stopGraceMs).catch((error: unknown) => this.deps.onError(error, `stopping a stuck instance of ${this.app.slug}`));
      },
    );
    this.recovery = new CrashRecovery({
      clock: deps.clock,
      backoff: deps.backoff,
      startTimeoutMs: deps.startTimeoutMs,
      stopGraceMs: deps.stopGraceMs,
      relaunch: (release) => this.relaunch(release),
      stillCrashed: (release) => !this.stopped && this.crashed === release,
      showCrashed: () => {
        deps.routes.unavailable(app.slug, "CRASHED");
        void deps.state.setAppStatus(app.id, "CRASHED");
      },
      spawn: (candidate, index) => this.spawn(candidate, index),
      healthOf: (release) => deps.healthOf(app.id, release.web),
      stillWanted: (candidate, index) => !this.stopped && this.current === candidate && index <= this.wanted && !candidate.replicas[index - 1],
      didNotStart: (error) => this.didNotStart(error),
      publish: () => this.publish(),
      log: (line, release) => this.system(line, release),
      changed: () => void deps.state.changed(app.id),
      crashed: () => deps.crashed?.(),
    });
  }

  get liveRelease(): Release | null {
    return this.current?.release ?? this.crashed;
  }

  /** Whether some instance of the live release runs. */
  get running(): boolean {
    return !!this.current?.replicas.some(alive);
  }

  get instances(): number {
    return this.wanted;
  }

  /** How many instances the next start runs (the App row's number; scale() changes what runs now). */
  want(instances: number): void {
    this.wanted = instances;
  }

  /** Failures in a row of the instance that failed most; an instance up for the healthy period has cleared them. */
  get restarts(): number {
    return this.recovery.restartsOf(this.current);
  }

  /** Stopped by its owner (or being deleted): nothing restarts it until the next deploy or restart. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** The live release's instances, for the app's details. */
  processes(): ReplicaStatus[] {
    return this.recovery.statuses(this.current);
  }

  /** New env vars: what is running (or starting) now has the old ones. */
  envChanged(): void {
    this.envVersion += 1;
  }

  /** Spawns `instances` instances of the release (nothing for a static site). Resolves once spawned, not once answering. */
  async start(release: Release): Promise<Candidate> {
    const candidate: Candidate = { release, root: null, replicas: [], startedAt: this.deps.clock.now(), envVersion: this.envVersion };
    if (release.web.kind === "static") return { ...candidate, root: path.resolve(release.dir, release.web.root) };
    const env = await this.deps.envOf(this.app.id);
    const started = await Promise.allSettled(Array.from({ length: this.wanted }, (_, i) => this.spawn(candidate, i + 1, env)));
    for (const result of started) if (result.status === "fulfilled") candidate.replicas[result.value.index - 1] = result.value;
    const failed = started.find((result) => result.status === "rejected");
    if (failed) {
      await this.discard(candidate);
      throw failed.reason;
    }
    return candidate;
  }

  /** Resolves once every instance passes its health check (a release that fails on one of them does not go live). */
  async waitHealthy(candidate: Candidate, signal?: AbortSignal): Promise<void> {
    await Promise.all(candidate.replicas.filter(alive).map((r) => waitUntilHealthy(r, this.deps.healthOf(this.app.id, candidate.release.web), this.deps.startTimeoutMs, signal)));
    for (const replica of candidate.replicas) if (replica) moveReplica(replica, "passed");
  }

  /** Sends traffic to the candidate; returns the one it replaced, still running until retired. */
  promote(candidate: Candidate): Candidate | null {
    const previous = this.current;
    if (this.liveRelease?.deploymentId !== candidate.release.deploymentId) this.recovery.newRelease();
    this.recovery.cancelAll();
    this.epoch += 1;
    this.current = candidate;
    this.crashed = null;
    this.stopped = false;
    this.serving = null;
    this.publish();
    // Some died between their answer and the switch: crashes like any other.
    for (const replica of candidate.replicas) if (replica?.exit !== undefined) this.recovery.instanceCrashed(candidate, replica.index, `the process exited (${replica.exit})`, replica.startedAt);
    if (!candidate.root) this.monitor.start();
    // The env vars changed while it started: start it again with the new ones.
    if (candidate.envVersion !== this.envVersion) void this.bringBack(candidate.release);
    else if (candidate.replicas.length !== this.wanted) void this.scale(this.wanted);
    return previous;
  }

  /** Resolves once the edge (EDGE=caddy) routes as the table says: after a switch, before the old instances retire. */
  routesSettled(): Promise<void> {
    return this.deps.routes.flush();
  }

  /** Lets replaced instances finish what they are serving, then stops them. */
  async retire(previous: Candidate | null): Promise<void> {
    const running = previous?.replicas.filter(alive) ?? [];
    if (!running.length) return;
    await this.drain();
    await Promise.all(running.map((r) => r.instance.stop(this.deps.stopGraceMs)));
  }

  /** A candidate that will not go live. */
  async discard(candidate: Candidate): Promise<void> {
    await Promise.all(candidate.replicas.map((r) => r?.instance.stop(this.deps.stopGraceMs)));
  }

  /** Start → answer → switch → retire, for a release already built (restart, rollback, crash, boot). */
  async relaunch(release: Release, signal?: AbortSignal): Promise<void> {
    const epoch = this.epoch;
    const launch = ++this.relaunches;
    const candidate = await this.start(release);
    try {
      await this.waitHealthy(candidate, signal);
    } catch (error) {
      await this.discard(candidate);
      throw error;
    }
    // A stop, a deploy's switch or a newer relaunch came meanwhile: they decide what serves, not this one.
    if (this.epoch !== epoch || this.relaunches !== launch) return this.discard(candidate);
    const previous = this.promote(candidate);
    await this.deps.routes.flush();
    await this.deps.state.setAppStatus(this.app.id, this.running || candidate.root ? "RUNNING" : "CRASHED", release.deploymentId);
    await this.retire(previous);
  }

  /**
   * Runs `instances` instances of the live release: new ones take traffic once they answer; removed ones leave
   * the route first, then drain and stop. Stopped apps and static sites only remember the number.
   */
  scale(instances: number): Promise<void> {
    this.wanted = instances;
    this.scaling = this.scaling.then(() => this.applyScale()).catch((error: unknown) => this.deps.onError(error, `scaling app ${this.app.slug}`));
    return this.scaling;
  }

  /** The router could not reach an instance: it leaves the rotation until a health check passes. */
  unreachable(instanceId: string, why: string): void {
    const replica = this.current?.replicas.find((r) => alive(r) && r.instance.instanceId === instanceId);
    if (replica) this.monitor.markFailed(replica, `the router could not reach it (${why}): out of rotation until it answers a health check`);
  }

  /** Stops serving: the route shows the app as stopped, and no restart happens until the next start. */
  async stop(status: StopStatus = "STOPPED"): Promise<void> {
    this.stopped = true;
    this.epoch += 1;
    this.recovery.cancelAll();
    this.monitor.stop();
    const running = this.current;
    this.crashed = running?.release ?? this.crashed;
    this.current = null;
    this.serving = null;
    this.deps.routes.stopped(this.app.slug, status);
    // The edge stops sending requests before the instances stop.
    await this.deps.routes.flush();
    // Going to sleep, requests already sent to it (through another instance's copy of the route) finish first.
    if (running) await (status === "SLEEPING" ? this.retire(running) : this.discard(running));
  }

  /**
   * After a platform restart, with a driver whose instances outlive it: the instances of `release` still running
   * what a start would run now become the live release (adoption.ts); the missing ones start. False when none
   * was adopted: the caller brings the release back (once the driver reaped what was not adopted).
   */
  async adopt(release: Release): Promise<boolean> {
    if (!this.deps.driver.adopt || release.web.kind === "static") return false;
    const candidate: Candidate = { release, root: null, replicas: [], startedAt: this.deps.clock.now(), envVersion: this.envVersion };
    const env = await this.deps.envOf(this.app.id);
    const adopted = await adoptReplicas(range(1, this.wanted), (index) => this.spawn(candidate, index, env, "adopt"), this.deps.healthOf(this.app.id, release.web), this.deps.stopGraceMs);
    if (!adopted.length) return false;
    for (const replica of adopted) candidate.replicas[replica.index - 1] = replica;
    candidate.replicas.length = this.wanted;
    const missing = range(1, this.wanted).filter((index) => !candidate.replicas[index - 1]);
    this.system(adoptedLine(adopted, missing), release);
    this.promote(candidate);
    await this.deps.routes.flush();
    await this.deps.state.setAppStatus(this.app.id, "RUNNING", release.deploymentId);
    for (const index of missing) void this.recovery.restartInstance(candidate, index);
    return true;
  }

  get deployFields(): Pick<DeployContext, "supervisor"> {
    return { supervisor: this };
  }

  async remove(): Promise<void> {
    await this.stop();
  }

  async close(keep: boolean): Promise<void> {
    if (keep) this.detach();
    else await this.stop().catch(() => {});
  }

  async abandon(candidate?: Candidate): Promise<void> {
    if (candidate) await this.discard(candidate).catch(() => {});
  }

  /** The platform shuts down and its driver leaves the instances running for the next boot: stop looking after them. */
  private detach(): void {
    this.stopped = true;
    this.epoch += 1;
    this.recovery.cancelAll();
    this.monitor.stop();
  }

  /** Relaunches a release (platform boot, restart); if it will not start, retries with back-off like a crash. */
  async bringBack(release: Release): Promise<void> {
    if (!this.current) this.crashed = release;
    try {
      await this.relaunch(release);
    } catch (error) {
      const why = this.didNotStart(error);
      if (this.stopped) return;
      if (!this.current) return this.recovery.retryRelease(release, why);
      this.system(`Restart failed: ${why}. The running instances keep serving.`, release);
    }
  }

  private async applyScale(): Promise<void> {
    const current = this.current;
    if (!current || current.root || this.stopped) return;
    const have = current.replicas.length;
    if (this.wanted > have) {
      current.replicas.length = this.wanted;
      this.system(`Scaling to ${this.wanted} instances: starting ${range(have + 1, this.wanted).map(replicaName).join(", ")}.`);
      await Promise.all(range(have + 1, this.wanted).map((index) => this.recovery.restartInstance(current, index)));
    } else if (this.wanted < have) {
      const removed = current.replicas.splice(this.wanted);
      for (const index of range(this.wanted + 1, have)) this.recovery.cancelInstance(index);
      this.system(`Scaling to ${this.wanted} instance${this.wanted === 1 ? "" : "s"}: ${range(this.wanted + 1, have).map(replicaName).join(", ")} leave the route, then stop.`);
      this.publish();
      await this.deps.routes.flush();
      await this.retire({ ...current, replicas: removed });
    }
  }

  /** Spawns instance `index` of the candidate's release, or takes it over with `adopt` (spawn.ts); its exit while live is a crash. */
  private async spawn(candidate: Candidate, index: number, env?: Record<string, string>, adopt?: "adopt"): Promise<Replica>;
  private async spawn(candidate: Candidate, index: number, env: Record<string, string>, adopt: "adopt"): Promise<Replica | null>;
  private async spawn(candidate: Candidate, index: number, env?: Record<string, string>, adopt?: "adopt"): Promise<Replica | null> {
    return spawnReplica(this.deps, this.app, candidate.release, index, {
      env,
      adopt,
      onExit: (replica) => {
        if (this.current === candidate && candidate.replicas[index - 1] === replica) this.recovery.instanceCrashed(candidate, index, `the process exited (${replica.exit})`, replica.startedAt);
      },
    });
  }

  /** Routes the app as its live release stands: its serving instances, its static folder, or the crashed page. */
  private publish(): void {
    const current = this.current;
    if (!current || this.stopped) return;
    if (current.root) return this.deps.routes.serve(this.app.slug, { kind: "static", root: current.root });
    const upstreams = upstreamsOf(current.replicas);
    const serving = upstreams.length > 0;
    if (serving) this.deps.routes.serve(this.app.slug, { kind: "proxy", upstreams });
    else this.deps.routes.unavailable(this.app.slug, "CRASHED");
    // Right after a switch, RUNNING is the deployment's (or the relaunch's) to record, with the live release.
    const was = this.serving;
    this.serving = serving;
    if (was !== serving && (was !== null || !serving)) void this.deps.state.setAppStatus(this.app.id, serving ? "RUNNING" : "CRASHED");
    // Live views show each instance's state (App.processes).
    else void this.deps.state.changed(this.app.id);
  }

  private drain(): Promise<void> {
    return new Promise((resolve) => this.deps.clock.setTimeout(() => resolve(), this.deps.drainMs));
  }

  private system(line: string, release = this.liveRelease): void {
    this.deps.logs.append(this.app.id, { kind: "runtime", stream: "system", deploymentId: release?.deploymentId ?? null, line });
  }

  /** Why a start failed, in words for the app's log (an unexpected error goes to the operator's log instead). */
  private didNotStart(error: unknown): string {
    if (error instanceof DeployError) return `it did not start: ${error.message}`;
    this.deps.onError(error, `starting app ${this.app.slug} failed`);
    return "Slipway could not start it (the platform's log says why)";
  }
}
