// The hosting engine: runs deployments through the pipeline, one at a time per app, keeps each app's live
// release running through its supervisor, and answers the router from memory. It knows apps and
// deployments by id; users, quotas and access checks stay in the services that call it.
import fs from "node:fs/promises";
import path from "node:path";
import type { Db } from "../db/client.ts";
import type { Sql } from "../db/sql.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { Instance, RuntimeDriver, SandboxLimits } from "../platform/runtime/types.ts";
import { runPipeline, type StepTiming } from "./deploy/pipeline.ts";
import { DeployQueue } from "./deploy/queue.ts";
import type { DeployContext } from "./deploy/types.ts";
import type { CronEntry } from "./cron/entries.ts";
import { describeFailure } from "./deploy/failure.ts";
import { DeployError } from "./errors.ts";
import { processLog } from "./logs/sink.ts";
import { redactorFor, type Redact } from "./logs/redact.ts";
import { LogStore } from "./logs/store.ts";
import { hostingPaths, type HostingPaths } from "./paths.ts";
import { MemoryRouteTable } from "./routes.ts";
import { createHostingState, type AppStatus, type HostingState } from "./state.ts";
import { ServiceSupervisor } from "./service-supervisor.ts";
import type { Runner } from "./runner.ts";
import { AppSupervisor, systemClock, type Clock, type Release } from "./supervisor.ts";
import { HealthSettings } from "./health-settings.ts";
import { AppWorkers, type Formation, type ProcessStatus, type Workers } from "./processes/workers.ts";
import { ServiceWorkers } from "./processes/service-workers.ts";
import { processEnv } from "./builders/types.ts";
import { randomUUID } from "node:crypto";

import type { HealthCheckOptions } from "./health-monitor.ts";
import { releaseOf, releaseRef, type ReplicaStatus } from "./replicas.ts";

export interface EngineOptions {
  dataDir: string;
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
  /** The app owner's maxInstances (web and the Procfile's other types count against it together). */
  maxInstancesOf?(appId: string): Promise<number>;
  /** Unexpected failures (never user errors): the server's logger. */
  onError(error: unknown, message: string): void;
}

const INTERRUPTED = "Interrupted: the platform restarted during this deployment. Deploy again.";
const UNFINISHED = ["QUEUED", "BUILDING", "STARTING"] as const;

export class HostingEngine {
  readonly routes = new MemoryRouteTable();
  readonly logs: LogStore;
  readonly paths: HostingPaths;
  /** The apps' own health-check settings: the services set them, every check reads them. */
  readonly health: HealthSettings;
  private readonly state: HostingState;
  private readonly queue: DeployQueue;
  private readonly supervisors = new Map<string, Runner>();
  /** Each app's process types beside web (worker, clock, …): every runtime but an orchestrator. */
  private readonly workers = new Map<string, Workers>();
  private readonly redactors = new Map<string, Redact>();
  /** Deployments past their route switch and not yet finished: no longer cancelable. */
  private readonly switched = new Set<string>();

  constructor(private readonly deps: EngineDeps) {
    this.paths = hostingPaths(deps.options.dataDir);
    this.health = new HealthSettings(deps.options.healthCheck);
    this.logs = new LogStore(deps.db, deps.sql, deps.pubsub, {
      retention: deps.options.logRetention,
      onError: (error) => deps.onError(error, "writing app log lines failed"),
    });
    this.state = createHostingState(deps.db, deps.pubsub);
    this.queue = new DeployQueue({
      run: (appId, id, signal) => this.runDeployment(appId, id, signal),
      // A deployment that never builds frees its uploaded zip.
      superseded: async (appId, id, by) => {
        await this.state.updateDeployment(appId, id, { status: "SUPERSEDED", error: `Superseded by a newer deployment (${by}) before it was built.`, finishedAt: new Date() });
        await this.removeSource(appId, id);
      },
      canceled: async (appId, id) => {
        await this.state.updateDeployment(appId, id, { status: "CANCELED", error: "Canceled before it was built.", finishedAt: new Date() });
        await this.removeSource(appId, id);
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
  async boot(): Promise<void> {
    const { db } = this.deps;
    // Uploads staged by requests that never finished.
    await fs.rm(this.paths.uploads, { recursive: true, force: true });
    for (const app of await db.app.findMany({ select: { id: true, healthcheck: true } })) this.health.set(app.id, app.healthcheck);
    const adopted = await this.adoptRunning();
    await this.deps.driver.reap();
    const orchestrator = this.deps.driver.orchestrator;
    if (orchestrator) {
      const kept = new Set((await db.app.findMany({ select: { id: true } })).map((a) => a.id));
      await orchestrator.reap((appKey) => kept.has(appKey));
    }
    const interrupted = await db.deployment.findMany({ where: { status: { in: [...UNFINISHED] } }, select: { id: true, appId: true, rollbackOfId: true } });
    for (const d of interrupted) {
      await this.state.updateDeployment(d.appId, d.id, { status: "FAILED", error: INTERRUPTED, finishedAt: new Date() });
      if (!d.rollbackOfId) await this.removeSource(d.appId, d.id);
    }
    const apps = await db.app.findMany({ include: { liveDeployment: true, deployments: { orderBy: { createdAt: "desc" }, take: 1, select: { error: true } } } });
    for (const app of apps) {
      const release = releaseOf(app.liveDeployment);
      const status = app.status as AppStatus;
      if (!release) {
        // Nothing to bring back: a deploy or a start was under way, or the release is gone.
        const settled = status === "CREATED" || status === "STOPPED" ? status : "FAILED";
        if (settled !== status) await this.state.setAppStatus(app.id, settled);
        this.routes.unavailable(app.slug, settled, app.deployments[0]?.error ?? undefined);
        continue;
      }
      if (status === "STOPPED") {
        this.routes.unavailable(app.slug, "STOPPED");
        continue;
      }
      if (adopted.workers.has(app.id)) void this.workersOf(app).resume().catch((error) => this.deps.onError(error, `starting the workers of app ${app.slug}`));
      else this.runWorkers(app, release, app.formation as Formation | null);
      if (adopted.web.has(app.id)) continue;
      this.routes.unavailable(app.slug, "DEPLOYING");
      const supervisor = this.supervisorOf(app);
      void supervisor.bringBack(release).catch((error) => this.deps.onError(error, `bringing back app ${app.slug}`));
    }
  }

  /** The apps whose instances (or service) an earlier platform left running serve again, before the reap. */
  private async adoptRunning(): Promise<{ web: Set<string>; workers: Set<string> }> {
    const adopted = { web: new Set<string>(), workers: new Set<string>() };
    const apps = await this.deps.db.app.findMany({ where: { status: { not: "STOPPED" } }, include: { liveDeployment: true } });
    await Promise.all(
      apps.map(async (app) => {
        const release = releaseOf(app.liveDeployment);
        if (!release) return;
        const failed = (error: unknown) => {
          this.deps.onError(error, `adopting the instances of app ${app.slug}`);
          return false;
        };
        const [web, workers] = await Promise.all([
          this.supervisorOf(app).adopt(release).catch(failed),
          this.workersOf(app).adopt(release, app.formation as Formation | null).catch(failed),
        ]);
        if (web) adopted.web.add(app.id);
        if (workers) adopted.workers.add(app.id);
      }),
    );
    return adopted;
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
    this.supervisorOf(app);
    await this.queue.enqueue(app.id, deploymentId);
    // A deployment that waits behind a running one changes nothing else yet: live views must still hear of it.
    await this.state.changed(app.id);
  }

  /** False once the deployment finished, or took traffic (a switch is not undone by a cancel). */
  cancel(appId: string, deploymentId: string): Promise<boolean> {
    if (this.switched.has(deploymentId)) return Promise.resolve(false);
    return this.queue.cancel(appId, deploymentId);
  }

  /** The live release's supervisor state, for the app's details: web's instances, and the other types'. */
  runtime(appId: string): { restarts: number; running: boolean; processes: ReplicaStatus[]; workers: ProcessStatus[] } {
    const supervisor = this.supervisors.get(appId);
    const workers = this.workers.get(appId)?.status() ?? [];
    return { restarts: supervisor?.restarts ?? 0, running: !!supervisor?.running, processes: supervisor?.processes() ?? [], workers };
  }

  /** Runs `quantity` instances of a type beside web of the live release (web scales through scale()). */
  scaleWorkers(app: { id: string }, type: string, quantity: number): Promise<void> {
    return this.workers.get(app.id)?.scale(type, quantity) ?? Promise.resolve();
  }

  /** Runs `instances` instances of the app's live release (remembered for the next start when none runs). */
  scale(app: { id: string; slug: string }, instances: number): Promise<void> {
    return this.supervisorOf(app).scale(instances);
  }

  /** The router could not reach an instance (connection refused or reset): out of rotation until it answers. */
  upstreamFailed(slug: string, instanceId: string, why: string): void {
    for (const supervisor of this.supervisors.values()) if (supervisor.app.slug === slug) supervisor.unreachable(instanceId, why);
  }

  async stop(app: { id: string; slug: string }): Promise<void> {
    await Promise.all([this.supervisorOf(app).stop(), this.workers.get(app.id)?.stop()]);
    await this.state.setAppStatus(app.id, "STOPPED");
  }

  /** Starts the live release again (a fresh instance takes over once it answers). */
  async restart(app: { id: string; slug: string }, live: { id: string; releasePath: string | null; web: unknown; processes?: unknown }): Promise<void> {
    const release = releaseOf(live);
    if (!release) throw new DeployError("The live release is no longer kept on disk: deploy again.");
    const supervisor = this.supervisorOf(app);
    this.logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: "Restarting." });
    const formation = await this.formationOf(app.id);
    // Web first, as a deploy does: a stopped app is no longer stopped once it runs again.
    await supervisor.bringBack(release);
    this.runWorkers(app, release, formation);
  }

  /** New env vars: secrets are redacted from now on, and a running app restarts with them. */
  async envChanged(app: { id: string; slug: string }): Promise<void> {
    await this.envOf(app.id);
    const formation = await this.formationOf(app.id);
    const supervisor = this.supervisors.get(app.id);
    supervisor?.envChanged();
    const release = supervisor?.liveRelease;
    if (!supervisor || !release || supervisor.isStopped) return;
    // Crashed web instances and workers read the new ones when they start again; running ones restart now.
    const workersRun = !!this.workers.get(app.id)?.types.length;
    if (!supervisor.running && !workersRun) return;
    this.logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: "Restarting with the new environment variables." });
    if (workersRun) this.runWorkers(app, release, formation);
    if (supervisor.running) void supervisor.bringBack(release).catch((error) => this.deps.onError(error, `restarting app ${app.slug}`));
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
    const supervisor = this.supervisors.get(app.id);
    const release = supervisor?.liveRelease;
    // Web and the other types are decided apart: workers may write to the database while web crash-loops.
    const webRan = !!supervisor?.running && !!release;
    const workersRan = !!release && !!this.workers.get(app.id)?.types.length;
    await Promise.all([webRan ? supervisor!.stop() : undefined, workersRan ? this.workers.get(app.id)!.stop() : undefined]);
    try {
      return await fn();
    } finally {
      if (webRan || workersRan) {
        this.logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release!.deploymentId, line: "Restarting after a database restore." });
        const formation = await this.formationOf(app.id);
        if (webRan) await supervisor!.bringBack(release!);
        if (workersRan) this.runWorkers(app, release!, formation);
      }
    }
  }

  /** Stops everything the app runs and removes its releases; the database rows are the caller's. */
  async remove(app: { id: string; slug: string }): Promise<void> {
    await this.queue.drop(app.id);
    const supervisor = this.supervisors.get(app.id);
    await Promise.all([supervisor?.remove(), this.workers.get(app.id)?.stop()]);
    this.supervisors.delete(app.id);
    this.workers.delete(app.id);
    this.redactors.delete(app.id);
    this.health.forget(app.id);
    this.routes.remove(app.slug);
    await this.routes.flush();
    await this.deps.driver.removeApp(app.id);
    await fs.rm(this.paths.app(app.id), { recursive: true, force: true });
  }

  async close(): Promise<void> {
    await this.queue.close();
    // What serves keeps running (KEEP_APPS_ON_SHUTDOWN): the next boot adopts it.
    const keep = !!this.deps.options.keepAppsOnShutdown;
    await Promise.all([...this.supervisors.values()].map((s) => s.close(keep)));
    // Slipway's own workers stop with the platform and start again at boot; an orchestrator's may keep running.
    await Promise.all([...this.workers.values()].map((w) => w.close(keep).catch(() => {})));
    await this.deps.driver.close();
    await this.logs.close();
  }

  /** The app's supervisor; `instances` (the App row's) sets how many instances its next start runs. */
  private supervisorOf(app: { id: string; slug: string; instances?: number }): Runner {
    let supervisor = this.supervisors.get(app.id);
    if (supervisor && app.instances !== undefined) supervisor.want(app.instances);
    const orchestrator = this.deps.driver.orchestrator;
    if (!supervisor && orchestrator) {
      supervisor = new ServiceSupervisor(
        {
          orchestrator,
          logs: this.logs,
          routes: this.routes,
          state: this.state,
          limits: this.deps.options.limits,
          dataPath: this.deps.driver.dataPath ?? "/data",
          envOf: (appId) => this.envOf(appId),
          dataDirOf: (appId) => this.paths.data(appId),
          redactorOf: (appId) => this.redactorOf(appId),
          healthOf: (appId, web) => this.health.of(appId, web),
          onError: this.deps.onError,
        },
        { id: app.id, slug: app.slug },
        app.instances,
      );
      this.supervisors.set(app.id, supervisor);
    }
    if (!supervisor) {
      const { options } = this.deps;
      supervisor = new AppSupervisor(
        {
          driver: this.deps.driver,
          logs: this.logs,
          routes: this.routes,
          state: this.state,
          limits: options.limits,
          startTimeoutMs: options.startTimeoutMs,
          healthCheck: options.healthCheck,
          healthOf: (appId, web) => this.health.of(appId, web),
          drainMs: options.drainMs,
          stopGraceMs: options.stopGraceMs,
          backoff: options.backoff,
          envOf: (appId) => this.envOf(appId),
          dataDirOf: (appId) => this.paths.data(appId),
          redactorOf: (appId) => this.redactorOf(appId),
          clock: this.deps.clock ?? systemClock,
          onError: this.deps.onError,
        },
        { id: app.id, slug: app.slug },
        app.instances,
      );
      this.supervisors.set(app.id, supervisor);
    }
    return supervisor;
  }

  /** The app's process types beside web, created on first use: Slipway's own instances, or a service each on Swarm. */
  private workersOf(app: { id: string; slug: string }): Workers {
    let workers = this.workers.get(app.id);
    const orchestrator = this.deps.driver.orchestrator;
    if (!workers && orchestrator) {
      workers = new ServiceWorkers({
        orchestrator,
        app: { id: app.id, slug: app.slug },
        logs: this.logs,
        limits: this.deps.options.limits,
        dataPath: this.deps.driver.dataPath ?? "/data",
        dataDir: this.paths.data(app.id),
        envOf: (appId) => this.envOf(appId),
        redactorOf: (appId) => this.redactorOf(appId),
        log: (line, release) => this.logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line }),
        changed: () => void this.state.changed(app.id),
        onError: this.deps.onError,
        stopGraceMs: this.deps.options.stopGraceMs,
      });
      this.workers.set(app.id, workers);
    }
    if (!workers) {
      const { options } = this.deps;
      workers = new AppWorkers({
        spawn: (release, type, index) => this.spawnWorker(app, release, type, index),
        adopt: (release, type, index) => this.spawnWorker(app, release, type, index, "adopt"),
        clock: this.deps.clock ?? systemClock,
        backoff: options.backoff,
        stopGraceMs: options.stopGraceMs,
        log: (line, release) => this.logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line }),
        changed: () => void this.state.changed(app.id),
      });
      this.workers.set(app.id, workers);
    }
    return workers;
  }

  /**
   * (Re)starts the release's process types beside web, in the background; a failure is the operator's to read. Not
   * for an app being stopped or deleted meanwhile (its supervisor says so).
   */
  private runWorkers(app: { id: string; slug: string }, release: Release, formation: Formation | null): void {
    const supervisor = this.supervisors.get(app.id);
    if (supervisor?.isStopped) return;
    void this.workersOf(app).roll(release, formation).catch((error) => this.deps.onError(error, `starting the workers of app ${app.slug}`));
  }

  private async formationOf(appId: string): Promise<Formation | null> {
    const app = await this.deps.db.app.findUnique({ where: { id: appId }, select: { formation: true } });
    return (app?.formation as Formation | null) ?? null;
  }

  /**
   * One instance of a process type beside web: sandboxed like web, without PORT or traffic, logged as type.N.
   * With "adopt": the one an earlier platform left running, if it runs exactly that (null otherwise).
   */
  private async spawnWorker(app: { id: string; slug: string }, release: Release, type: string, index: number): Promise<Instance>;
  private async spawnWorker(app: { id: string; slug: string }, release: Release, type: string, index: number, adopt: "adopt"): Promise<Instance | null>;
  private async spawnWorker(app: { id: string; slug: string }, release: Release, type: string, index: number, adopt?: "adopt"): Promise<Instance | null> {
    const { driver } = this.deps;
    if (adopt && !driver.adopt) return null;
    const name = `${type}.${index}`;
    const log = processLog(this.logs, { appId: app.id, kind: "runtime", deploymentId: release.deploymentId, process: name }, () => this.redactorOf(app.id));
    const spec = {
      appKey: app.id,
      instanceId: randomUUID(),
      index,
      process: type,
      workDir: release.dir,
      dataDir: this.paths.data(app.id),
      argv: release.processes?.[type] ?? [],
      env: { ...processEnv(release.web, await this.envOf(app.id)), DYNO: name },
      limits: this.deps.options.limits,
      onOutput: log.sink,
      release: releaseRef(app.slug, release.dir),
    };
    const instance = adopt ? await driver.adopt!(spec) : await driver.start(spec);
    void instance?.exited.then(() => log.end());
    return instance;
  }

  /** What hides the app's secrets in its logs (nothing until its env vars were read). */
  private redactorOf(appId: string): Redact {
    return this.redactors.get(appId) ?? ((line) => line);
  }

  /** The app's env vars (what its processes see), refreshing the redactor of its logs on the way. */
  private async envOf(appId: string): Promise<Record<string, string>> {
    const vars = await this.deps.db.envVar.findMany({ where: { appId }, select: { key: true, value: true } });
    const env = Object.fromEntries(vars.map((v) => [v.key, v.value]));
    this.redactors.set(appId, redactorFor(Object.values(env)));
    return env;
  }

  private async runDeployment(appId: string, deploymentId: string, signal: AbortSignal): Promise<void> {
    const { db } = this.deps;
    const deployment = await db.deployment.findUnique({ where: { id: deploymentId }, include: { app: true } });
    if (!deployment) return;
    const app = { id: appId, slug: deployment.app.slug, instances: deployment.app.instances };
    this.health.set(appId, deployment.app.healthcheck);
    const log = processLog(this.logs, { appId, kind: "build", deploymentId }, () => this.redactorOf(appId));
    const supervisor = this.supervisorOf(app);
    const timings: StepTiming[] = [];
    let ctx: DeployContext | undefined;
    let rollbackOf: Release | null = null;
    try {
      await this.logs.resume(appId);
      const rolledBack = deployment.rollbackOfId ? await db.deployment.findUnique({ where: { id: deployment.rollbackOfId } }) : null;
      rollbackOf = releaseOf(rolledBack);
      ctx = {
        app,
        deploymentId,
        releaseDir: rollbackOf?.dir ?? this.paths.release(appId, deploymentId),
        previous: supervisor.liveRelease,
        source: deployment.source,
        zip: deployment.source === "zip" ? this.paths.sourceZip(appId, deploymentId) : undefined,
        git:
          deployment.source === "github" && deployment.repo
            ? { baseUrl: this.deps.git.baseUrl, repo: deployment.repo, branch: deployment.branch, commit: deployment.commit, token: await this.deps.git.tokenFor(appId) }
            : undefined,
        recordCommit: (commit, commitMessage) => this.state.updateDeployment(appId, deploymentId, { commit, commitMessage }),
        recordBuilder: (builder) => this.state.updateDeployment(appId, deploymentId, { builder }),
        rollbackOf: rollbackOf ?? undefined,
        cron: (rolledBack?.cron as CronEntry[] | null | undefined) ?? undefined,
        signal,
        buildDeadline: Date.now() + this.deps.options.buildTimeoutMs,
        env: await this.envOf(appId),
        log: log.system,
        output: log.sink,
        processOutput: (process) => processLog(this.logs, { appId, kind: "build", deploymentId, process }, () => this.redactorOf(appId)),
        driver: this.deps.driver,
        ...supervisor.deployFields,
        workers: this.workersOf(app),
        formation: () => this.formationOf(appId),
        ...(this.deps.maxInstancesOf ? { maxInstances: () => this.deps.maxInstancesOf!(appId) } : {}),
        buildLimits: this.deps.options.buildLimits,
        build: { ...this.deps.options.build, cacheDir: this.paths.cache(appId) },
      };
      await this.state.updateDeployment(appId, deploymentId, { status: "BUILDING", startedAt: new Date() });
      await this.state.setAppStatus(appId, "DEPLOYING");
      if (!supervisor.liveRelease) this.routes.unavailable(app.slug, "DEPLOYING");
      if (deployment.rollbackOfId && !rollbackOf) throw new DeployError("That release is no longer kept on disk: deploy again instead.");
      if (rollbackOf) log.system(`Rolling back to the release of deployment ${deployment.rollbackOfId}: no build.`);
      await runPipeline(rollbackOf ? supervisor.pipeline.rollback : supervisor.pipeline.build, ctx, timings, (step) => {
        if (step === "start") return this.state.updateDeployment(appId, deploymentId, { status: "STARTING" });
        if (ctx!.replaced !== undefined) this.switched.add(deploymentId);
      });
    } catch (error) {
      log.end();
      if (ctx?.replaced === undefined) {
        await this.failed(app, deploymentId, error, { ctx, rollbackOf, signal, timings, statusBefore: deployment.app.status as AppStatus });
        return void (await this.logs.flush());
      }
      // Past the switch the new release serves: what failed after it (retiring the old one) is not the deployment's.
      this.deps.onError(error, `after deployment ${deploymentId} went live`);
      // The previous release's process types are no longer the app's to stop: stop them here, or nothing would.
      await ctx.workers?.retire(ctx.replacedWorkers ?? []).catch((e) => this.deps.onError(e, `stopping the previous workers of ${app.slug}`));
    }
    try {
      log.end();
      const previousLive = deployment.app.liveDeploymentId;
      await this.deps.goingLive?.(appId, ctx!.cron ?? []).catch((error) => this.deps.onError(error, `setting the cron jobs of deployment ${deploymentId}`));
      await this.state.settleDeployment(appId, deploymentId, {
        status: "LIVE",
        finishedAt: new Date(),
        releasePath: ctx!.releaseDir,
        web: rollbackOf?.web ?? ctx!.plan!.web,
        cron: ctx!.cron ?? [],
        processes: rollbackOf ? (rollbackOf.processes ?? null) : (ctx!.plan!.processes ?? null),
        steps: timings,
        superseded: previousLive !== deploymentId ? previousLive : null,
        app: "RUNNING",
        liveDeploymentId: deploymentId,
      });
      log.system(`Deployed: ${timings.map((t) => `${t.name} ${t.ms} ms`).join(", ")}.`);
      await this.pruneReleases(appId);
    } catch (error) {
      this.deps.onError(error, `recording deployment ${deploymentId} as live`);
    } finally {
      this.switched.delete(deploymentId);
      await this.logs.flush();
    }
  }

  /** A deployment that did not go live: what it started is stopped, its release removed, and it says why. */
  private async failed(
    app: { id: string; slug: string },
    deploymentId: string,
    error: unknown,
    at: { ctx?: DeployContext; rollbackOf: Release | null; signal: AbortSignal; timings: StepTiming[]; statusBefore: AppStatus },
  ): Promise<void> {
    const supervisor = this.supervisorOf(app);
    await supervisor.abandon(at.ctx?.candidate);
    if (!at.rollbackOf) {
      await this.removeRelease(app, this.paths.release(app.id, deploymentId));
      await fs.rm(this.paths.sourceZip(app.id, deploymentId), { force: true });
    }
    const failure = describeFailure(error, at.signal.aborted);
    if (failure.unexpected) this.deps.onError(error, `deployment ${deploymentId} failed`);
    for (const line of failure.buildLog) this.logs.append(app.id, { kind: "build", deploymentId, ...line });
    const status = this.statusAfterFailure(supervisor, at.statusBefore, failure.canceled);
    if (status === "FAILED" || status === "CREATED") this.routes.unavailable(app.slug, status, failure.message);
    await this.state.settleDeployment(app.id, deploymentId, {
      status: failure.canceled ? "CANCELED" : "FAILED",
      error: failure.message,
      failureOutput: failure.output,
      finishedAt: new Date(),
      steps: at.timings,
      app: status,
    });
  }

  /** What the app is once a deployment failed: whatever its previous release is doing. */
  private statusAfterFailure(supervisor: Runner, before: AppStatus, canceled: boolean): AppStatus {
    if (supervisor.isStopped || before === "STOPPED") return "STOPPED";
    if (supervisor.running || supervisor.liveRelease?.web.kind === "static") return "RUNNING";
    if (supervisor.liveRelease) return "CRASHED";
    return canceled && before === "CREATED" ? "CREATED" : "FAILED";
  }

  /** Keeps the newest releases (and the live one) on disk; older ones can no longer be rolled back to. */
  private async pruneReleases(appId: string): Promise<void> {
    const { db } = this.deps;
    const kept = await db.deployment.findMany({
      where: { appId, releasePath: { not: null } },
      orderBy: { createdAt: "desc" },
      select: { id: true, releasePath: true },
    });
    const app = await db.app.findUnique({ where: { id: appId }, select: { liveDeploymentId: true, slug: true } });
    const keep = kept.slice(0, this.deps.options.releasesKept);
    const keepPaths = new Set(keep.map((d) => d.releasePath));
    for (const old of kept.slice(this.deps.options.releasesKept)) {
      if (old.id === app?.liveDeploymentId) continue;
      await db.deployment.update({ where: { id: old.id }, data: { releasePath: null } });
      if (!keepPaths.has(old.releasePath) && app) await this.removeRelease({ id: appId, slug: app.slug }, old.releasePath!);
    }
  }

  /** What a deployment that did not build leaves: its release folder (a partial one) and its uploaded zip. */
  private async removeSource(appId: string, deploymentId: string): Promise<void> {
    await fs.rm(this.paths.release(appId, deploymentId), { recursive: true, force: true });
    await fs.rm(this.paths.sourceZip(appId, deploymentId), { force: true });
  }

  /** A release's folder, and what the driver made of it (an image). */
  private async removeRelease(app: { id: string; slug: string }, dir: string): Promise<void> {
    await fs.rm(dir, { recursive: true, force: true });
    await this.deps.driver.removeRelease?.(app.id, releaseRef(app.slug, dir)).catch((error) => this.deps.onError(error, `removing the image of ${dir}`));
  }
}
