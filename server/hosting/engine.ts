// The hosting engine: runs deployments through the pipeline, one at a time per app (deploy/run-deployment.ts),
// keeps each app's live release running through its runners (app-runners.ts), brings apps back after a platform
// restart (boot.ts), and answers the router from memory. It knows apps and deployments by id; users, quotas and
// access checks stay in the services that call it.
import fs from "node:fs/promises";
import path from "node:path";
import type { Db } from "../db/client.ts";
import type { Sql } from "../db/sql.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { Instance, RuntimeDriver, SandboxLimits } from "../platform/runtime/types.ts";
import { DeployQueue } from "./deploy/queue.ts";
import { ReleaseFiles } from "./deploy/releases.ts";
import { DeploymentRunner } from "./deploy/run-deployment.ts";
import type { CronEntry } from "./cron/entries.ts";
import { AppEnv } from "./app-env.ts";
import { AppRunners } from "./app-runners.ts";
import { bootHosting } from "./boot.ts";
import { DeployError } from "./errors.ts";
import { LogStore } from "./logs/store.ts";
import { hostingPaths, type HostingPaths } from "./paths.ts";
import { MemoryRouteTable } from "./routes.ts";
import { createHostingState, type DeploymentStatus, type HostingState } from "./state.ts";
import type { Clock } from "./clock.ts";
import { HealthSettings } from "./health-settings.ts";
import type { ProcessStatus } from "./processes/workers.ts";

import type { HealthCheckOptions } from "./health-monitor.ts";
import { releaseOf, type ReplicaStatus } from "./replicas.ts";
import { Sleeper } from "./sleep/sleeper.ts";

export interface SampledInstance {
  appId: string;
  process: string;
  /** Its failures in a row (App.processes' restarts). */
  restarts: number;
  instance: Instance;
}

/** What pause() stopped: resume() starts it again. */
export interface Paused {
  deploymentId: string | null;
  web: boolean;
  workers: boolean;
}

export interface EngineOptions {
  dataDir: string;
  /** SHARED_DATA_DIR: the apps' data and received zips (hosting/paths.ts); DATA_DIR unless set. */
  sharedDataDir?: string;
  limits: SandboxLimits;
  buildLimits: SandboxLimits;
  buildTimeoutMs: number;
  /** BUILD_ENV and BUILD_READONLY_PATHS: what every build sees besides the app's env vars. */
  build: { env: Record<string, string>; readOnlyPaths: string[] };
  startTimeoutMs: number;
  /** The default check's interval and timeout (a TCP connect), and when an instance leaves rotation or restarts. */
  healthCheck: HealthCheckOptions & { intervalMs: number; timeoutMs: number };
  drainMs: number;
  stopGraceMs: number;
  backoff: { baseMs: number; maxMs: number; healthyAfterMs: number };
  logRetention: number;
  releasesKept: number;
  /** Leave the web instances running at close() for the next boot to adopt (drivers with adopt()); else stop them. */
  keepAppsOnShutdown?: boolean;
}

export interface EngineDeps {
  db: Db;
  /** Prepared SQL, for the log lines' inserts. */
  sql: Sql;
  pubsub: PubSub;
  driver: RuntimeDriver;
  options: EngineOptions;
  clock?: Clock;
  /** Where repositories are cloned from (GITHUB_URL), and the token to clone an app's repository with. */
  git: { baseUrl: string; tokenFor(appId: string): Promise<string | null> };
  /**
   * A release is going live (a deploy or a rollback), with its app.json cron jobs: called just before it is recorded
   * live, so that whoever sees it live sees its jobs too.
   */
  goingLive?(appId: string, cron: CronEntry[]): Promise<void>;
  /** A deployment finished (LIVE, FAILED, CANCELED), with its steps' times. */
  deploymentSettled?(status: DeploymentStatus, steps: { ms: number }[], ids: { appId: string; deploymentId: string }): void;
  /** A process of the app crashed (exited, or failed to start, while it should run). */
  appCrashed?(appId: string): void;
  /** The app owner's maxInstances (web and the Procfile's other types count against it together). */
  maxInstancesOf?(appId: string): Promise<number>;
  /** Unexpected failures (never user errors): the server's logger. */
  onError(error: unknown, message: string): void;
}

/** What the engine's parts (runners, deployments, boot) share with it. */
export interface EngineParts {
  logs: LogStore;
  routes: MemoryRouteTable;
  state: HostingState;
  health: HealthSettings;
  paths: HostingPaths;
  env: AppEnv;
}

export class HostingEngine {
  readonly routes = new MemoryRouteTable();
  readonly logs: LogStore;
  readonly paths: HostingPaths;
  /** The apps' own health-check settings: the services set them, every check reads them. */
  readonly health: HealthSettings;
  private readonly state: HostingState;
  private readonly queue: DeployQueue;
  private readonly env: AppEnv;
  private readonly runners: AppRunners;
  private readonly releases: ReleaseFiles;
  private readonly deployments: DeploymentRunner;
  private readonly sleeper: Sleeper;

  constructor(private readonly deps: EngineDeps) {
    this.paths = hostingPaths(deps.options.dataDir, deps.options.sharedDataDir);
    this.health = new HealthSettings(deps.options.healthCheck);
    this.logs = new LogStore(deps.db, deps.sql, deps.pubsub, {
      retention: deps.options.logRetention,
      onError: (error) => deps.onError(error, "writing app log lines failed"),
    });
    this.state = createHostingState(deps.db, deps.pubsub, deps.deploymentSettled);
    this.env = new AppEnv(deps.db);
    const parts: EngineParts = { logs: this.logs, routes: this.routes, state: this.state, health: this.health, paths: this.paths, env: this.env };
    this.runners = new AppRunners({ ...deps, ...parts });
    this.releases = new ReleaseFiles({ ...deps, paths: this.paths });
    this.deployments = new DeploymentRunner({ ...deps, ...parts, runners: this.runners, releases: this.releases });
    this.sleeper = new Sleeper({ runners: this.runners, routes: this.routes, logs: this.logs, state: this.state });
    this.queue = new DeployQueue({
      run: (appId, id, signal) => this.deployments.run(appId, id, signal),
      // A deployment that never builds frees its uploaded zip.
      superseded: async (appId, id, by) => {
        await this.state.updateDeployment(appId, id, { status: "SUPERSEDED", error: `Superseded by a newer deployment (${by}) before it was built.`, finishedAt: new Date() });
        await this.releases.removeSource(appId, id);
      },
      canceled: async (appId, id) => {
        await this.state.updateDeployment(appId, id, { status: "CANCELED", error: "Canceled before it was built.", finishedAt: new Date() });
        await this.releases.removeSource(appId, id);
      },
    });
  }

  get sandbox() {
    return this.deps.driver.sandbox;
  }

  /** Whether runs can attach a terminal on this runtime. */
  get terminals(): boolean {
    return !!this.deps.driver.terminals;
  }

  /**
   * After a platform restart: adopt what still runs as it should, clean up the rest, fail what was interrupted, and
   * bring back the apps that were running.
   */
  boot(): Promise<void> {
    const { deps, paths, health, state, routes, runners, releases } = this;
    return bootHosting({ ...deps, paths, health, state, routes, runners, releases, enqueue: (app, id) => this.enqueue(app, id) });
  }

  /** A new app answers with its "never deployed" page. */
  registerApp(app: { slug: string }): Promise<void> {
    this.routes.unavailable(app.slug, "CREATED");
    return this.routes.flush();
  }

  /** A line in a new deployment's build log, before it is queued (what was received). */
  async received(app: { id: string }, deploymentId: string, line: string): Promise<void> {
    await this.logs.resume(app.id);
    this.logs.append(app.id, { kind: "build", stream: "system", deploymentId, line });
  }

  async enqueue(app: { id: string; slug: string }, deploymentId: string): Promise<void> {
    this.runners.supervisorOf(app);
    await this.queue.enqueue(app.id, deploymentId);
    // A deployment that waits behind a running one changes nothing else yet: live views must still hear of it.
    await this.state.changed(app.id);
  }

  /** False once the deployment finished, or took traffic (a switch is not undone by a cancel). */
  cancel(appId: string, deploymentId: string): Promise<boolean> {
    if (this.deployments.isSwitched(deploymentId)) return Promise.resolve(false);
    return this.queue.cancel(appId, deploymentId);
  }

  /** Instances of every app's processes running now (web and the other types). */
  runningInstances(): number {
    let count = 0;
    for (const supervisor of this.runners.allSupervisors()) count += supervisor.processes().filter((p) => p.state === "healthy" || p.state === "unhealthy").length;
    for (const workers of this.runners.allWorkers()) for (const type of workers.status()) count += type.instances.filter((i) => i.state === "running").length;
    return count;
  }

  /** Each instance the driver runs for an app's live release, with its process type (what the app's metrics sample). */
  sampledInstances(): SampledInstance[] {
    const byId = new Map(this.deps.driver.list().map((instance) => [instance.instanceId, instance]));
    const sampled: SampledInstance[] = [];
    for (const appId of new Set([...byId.values()].map((instance) => instance.appKey))) {
      const { processes, workers } = this.runtime(appId);
      const add = (process: string, instanceId: string | null, restarts: number) => {
        const instance = instanceId ? byId.get(instanceId) : undefined;
        if (instance) sampled.push({ appId, process, restarts, instance });
      };
      for (const web of processes) add("web", web.instanceId, web.restarts);
      for (const type of workers) for (const worker of type.instances) add(type.type, worker.instanceId, worker.restarts);
    }
    return sampled;
  }

  /** The live release's supervisor state, for the app's details: web's instances, and the other types'. */
  runtime(appId: string): { restarts: number; running: boolean; processes: ReplicaStatus[]; workers: ProcessStatus[] } {
    const supervisor = this.runners.findSupervisor(appId);
    const workers = this.runners.findWorkers(appId)?.status() ?? [];
    return { restarts: supervisor?.restarts ?? 0, running: !!supervisor?.running, processes: supervisor?.processes() ?? [], workers };
  }

  /** Runs `quantity` instances of a type beside web of the live release (web scales through scale()). */
  scaleWorkers(app: { id: string }, type: string, quantity: number): Promise<void> {
    return this.runners.findWorkers(app.id)?.scale(type, quantity) ?? Promise.resolve();
  }

  /** Runs `instances` instances of the app's live release (remembered for the next start when none runs). */
  scale(app: { id: string; slug: string }, instances: number): Promise<void> {
    return this.runners.supervisorOf(app).scale(instances);
  }

  /** The router could not reach an instance (connection refused or reset): out of rotation until it answers. */
  upstreamFailed(slug: string, instanceId: string, why: string): void {
    for (const supervisor of this.runners.allSupervisors()) if (supervisor.app.slug === slug) supervisor.unreachable(instanceId, why);
  }

  async stop(app: { id: string; slug: string }): Promise<void> {
    await Promise.all([this.runners.supervisorOf(app).stop(), this.runners.findWorkers(app.id)?.stop()]);
    await this.state.setAppStatus(app.id, "STOPPED");
  }

  /** Starts the live release again (a fresh instance takes over once it answers). */
  async restart(app: { id: string; slug: string }, live: { id: string; releasePath: string | null; web: unknown; processes?: unknown }): Promise<void> {
    const release = releaseOf(live);
    if (!release) throw new DeployError("The live release is no longer kept on disk: deploy again.");
    const supervisor = this.runners.supervisorOf(app);
    this.logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: "Restarting." });
    const formation = await this.runners.formationOf(app.id);
    // Web first, as a deploy does: a stopped app is no longer stopped once it runs again.
    await supervisor.bringBack(release);
    this.runners.runWorkers(app, release, formation);
  }

  /**
   * No request for the app's sleepAfterMinutes: its web instances stop (its other types too with sleepWorkers) and
   * its route holds the next request while wake() starts them. False when nothing serves to put to sleep.
   */
  sleep(app: { id: string; slug: string; sleepWorkers: boolean }, idleMinutes: number): Promise<boolean> {
    return this.sleeper.sleep(app, idleMinutes);
  }

  /**
   * Starts a sleeping app's live release again (the router holds its request meanwhile); concurrent wakes share one
   * start. Resolves once it serves, or once its start failed (the router then answers that it could not wake).
   */
  wake(app: { id: string; slug: string }, live: { id: string; releasePath: string | null; web: unknown; processes?: unknown } | null): Promise<void> {
    return this.sleeper.wake(app, releaseOf(live));
  }

  /** New env vars: secrets are redacted from now on, and a running app restarts with them. */
  async envChanged(app: { id: string; slug: string }): Promise<void> {
    await this.env.of(app.id);
    const formation = await this.runners.formationOf(app.id);
    const supervisor = this.runners.findSupervisor(app.id);
    supervisor?.envChanged();
    const release = supervisor?.liveRelease;
    if (!supervisor || !release) return;
    // Crashed web instances and workers read the new ones when they start again; running ones restart now (a sleeping
    // app's workers too: its web reads them when it wakes).
    const webRuns = !supervisor.isStopped && supervisor.running;
    const workersRun = !!this.runners.findWorkers(app.id)?.types.length;
    if (!webRuns && !workersRun) return;
    this.logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: "Restarting with the new environment variables." });
    if (workersRun) this.runners.runWorkers(app, release, formation);
    if (webRuns) void supervisor.bringBack(release).catch((error) => this.deps.onError(error, `restarting app ${app.slug}`));
  }

  /** Where the app's processes see a file of its data directory (its SQLite databases). */
  appDataPath(appId: string, file: string): { host: string; inApp: string } {
    const host = path.join(this.paths.data(appId), file);
    const dataPath = this.deps.driver.dataPath;
    return { host, inApp: dataPath ? path.posix.join(dataPath, file) : host };
  }

  /** Where the app's processes reach a platform service (the PostgreSQL server of their databases). */
  appEndpoint(service: { host: string; port: number }): { host: string; port: number } {
    return this.deps.driver.appEndpoint(service);
  }

  /** Runs `fn` with the app's processes stopped (a database restore), then starts its live release again. */
  async whileStopped<T>(app: { id: string; slug: string }, fn: () => Promise<T>): Promise<T> {
    const paused = await this.pause(app);
    try {
      return await fn();
    } finally {
      await this.resume(app, paused);
    }
  }

  /** Stops the app's processes for a while (whileStopped) and says what ran, for resume(). */
  async pause(app: { id: string }): Promise<Paused> {
    const supervisor = this.runners.findSupervisor(app.id);
    const workers = this.runners.findWorkers(app.id);
    const release = supervisor?.liveRelease;
    // Web and the other types are decided apart: workers may write to the database while web crash-loops.
    const paused: Paused = { deploymentId: release?.deploymentId ?? null, web: !!supervisor?.running && !!release, workers: !!release && !!workers?.types.length };
    await Promise.all([paused.web ? supervisor!.stop() : undefined, paused.workers ? workers!.stop() : undefined]);
    return paused;
  }

  /** Starts again what pause() stopped, unless another release went live meanwhile (its deploy started it). */
  async resume(app: { id: string; slug: string }, paused: Paused): Promise<void> {
    if (!paused.web && !paused.workers) return;
    const supervisor = this.runners.findSupervisor(app.id);
    const release = supervisor?.liveRelease;
    if (!supervisor || !release || release.deploymentId !== paused.deploymentId) return;
    this.logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: "Restarting after a database restore." });
    const formation = await this.runners.formationOf(app.id);
    if (paused.web) await supervisor.bringBack(release);
    if (paused.workers) this.runners.runWorkers(app, release, formation);
  }

  /** Stops everything the app runs and removes its releases; the database rows are the caller's. */
  async remove(app: { id: string; slug: string }): Promise<void> {
    await this.queue.drop(app.id);
    const supervisor = this.runners.findSupervisor(app.id);
    await Promise.all([supervisor?.remove(), this.runners.findWorkers(app.id)?.stop()]);
    this.runners.forget(app.id);
    this.env.forget(app.id);
    this.health.forget(app.id);
    this.routes.remove(app.slug);
    await this.routes.flush();
    await this.deps.driver.removeApp(app.id);
    await fs.rm(this.paths.app(app.id), { recursive: true, force: true });
    await fs.rm(this.paths.sharedApp(app.id), { recursive: true, force: true });
  }

  async close(): Promise<void> {
    await this.queue.close();
    // What serves keeps running (KEEP_APPS_ON_SHUTDOWN): the next boot adopts it.
    const keep = !!this.deps.options.keepAppsOnShutdown;
    await Promise.all(this.runners.allSupervisors().map((s) => s.close(keep)));
    // Slipway's own workers stop with the platform and start again at boot; an orchestrator's may keep running.
    await Promise.all(this.runners.allWorkers().map((w) => w.close(keep).catch(() => {})));
    await this.deps.driver.close();
    await this.logs.close();
  }
}
