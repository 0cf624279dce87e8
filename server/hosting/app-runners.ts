// Each app's runners, created on first use and kept until the app is removed: a Runner for web (supervisor.ts:
// Slipway's own instances; service-supervisor.ts: a Swarm service) and Workers for the other process types
// (processes/). Which kind an app gets follows the runtime driver: an orchestrator's, or Slipway's own.
import type { Instance } from "../platform/runtime/types.ts";
import type { EngineDeps, EngineParts } from "./engine.ts";
import { processLog } from "./logs/sink.ts";
import { AppWorkers, type Formation, type Workers } from "./processes/workers.ts";
import { ServiceWorkers } from "./processes/service-workers.ts";
import type { Release } from "./release.ts";
import type { Runner } from "./runner.ts";
import { ServiceSupervisor } from "./service-supervisor.ts";
import { instanceSpec } from "./spawn.ts";
import { AppSupervisor, systemClock } from "./supervisor.ts";

export type AppRunnersDeps = Pick<EngineDeps, "db" | "driver" | "options" | "clock" | "onError" | "appCrashed"> & EngineParts;

export class AppRunners {
  private readonly supervisors = new Map<string, Runner>();
  /** Each app's process types beside web (worker, clock, …): every runtime but an orchestrator. */
  private readonly workers = new Map<string, Workers>();

  constructor(private readonly deps: AppRunnersDeps) {}

  /** The app's supervisor, if it has one yet. */
  findSupervisor(appId: string): Runner | undefined {
    return this.supervisors.get(appId);
  }

  /** The app's process types beside web, if it has them yet. */
  findWorkers(appId: string): Workers | undefined {
    return this.workers.get(appId);
  }

  allSupervisors(): Runner[] {
    return [...this.supervisors.values()];
  }

  allWorkers(): Workers[] {
    return [...this.workers.values()];
  }

  /** The app is removed: its runners are no longer kept (stopping them is the caller's). */
  forget(appId: string): void {
    this.supervisors.delete(appId);
    this.workers.delete(appId);
  }

  /** The app's supervisor; `instances` (the App row's) sets how many instances its next start runs. */
  supervisorOf(app: { id: string; slug: string; instances?: number }): Runner {
    let supervisor = this.supervisors.get(app.id);
    if (supervisor && app.instances !== undefined) supervisor.want(app.instances);
    const { driver, options, env, health, paths } = this.deps;
    const orchestrator = driver.orchestrator;
    if (!supervisor && orchestrator) {
      supervisor = new ServiceSupervisor(
        {
          orchestrator,
          logs: this.deps.logs,
          routes: this.deps.routes,
          state: this.deps.state,
          limits: options.limits,
          dataPath: driver.dataPath ?? "/data",
          envOf: (appId) => env.of(appId),
          dataDirOf: (appId) => paths.data(appId),
          redactorOf: (appId) => env.redactorOf(appId),
          healthOf: (appId, web) => health.of(appId, web),
          onError: this.deps.onError,
          crashed: () => this.deps.appCrashed?.(app.id),
        },
        { id: app.id, slug: app.slug },
        app.instances,
      );
      this.supervisors.set(app.id, supervisor);
    }
    if (!supervisor) {
      supervisor = new AppSupervisor(
        {
          driver,
          logs: this.deps.logs,
          routes: this.deps.routes,
          state: this.deps.state,
          limits: options.limits,
          startTimeoutMs: options.startTimeoutMs,
          healthCheck: options.healthCheck,
          healthOf: (appId, web) => health.of(appId, web),
          drainMs: options.drainMs,
          stopGraceMs: options.stopGraceMs,
          backoff: options.backoff,
          envOf: (appId) => env.of(appId),
          dataDirOf: (appId) => paths.data(appId),
          redactorOf: (appId) => env.redactorOf(appId),
          clock: this.deps.clock ?? systemClock,
          onError: this.deps.onError,
          crashed: () => this.deps.appCrashed?.(app.id),
        },
        { id: app.id, slug: app.slug },
        app.instances,
      );
      this.supervisors.set(app.id, supervisor);
    }
    return supervisor;
  }

  /** The app's process types beside web, created on first use: Slipway's own instances, or a service each on Swarm. */
  workersOf(app: { id: string; slug: string }): Workers {
    let workers = this.workers.get(app.id);
    const { driver, options, env, logs, state } = this.deps;
    const orchestrator = driver.orchestrator;
    const log = (line: string, release: Release) => logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line });
    if (!workers && orchestrator) {
      workers = new ServiceWorkers({
        orchestrator,
        app: { id: app.id, slug: app.slug },
        logs,
        limits: options.limits,
        dataPath: driver.dataPath ?? "/data",
        dataDir: this.deps.paths.data(app.id),
        envOf: (appId) => env.of(appId),
        redactorOf: (appId) => env.redactorOf(appId),
        log,
        changed: () => void state.changed(app.id),
        onError: this.deps.onError,
        stopGraceMs: options.stopGraceMs,
        crashed: () => this.deps.appCrashed?.(app.id),
      });
      this.workers.set(app.id, workers);
    }
    if (!workers) {
      workers = new AppWorkers({
        spawn: (release, type, index) => this.spawnWorker(app, release, type, index),
        adopt: (release, type, index) => this.spawnWorker(app, release, type, index, "adopt"),
        clock: this.deps.clock ?? systemClock,
        backoff: options.backoff,
        stopGraceMs: options.stopGraceMs,
        log,
        changed: () => void state.changed(app.id),
        crashed: () => this.deps.appCrashed?.(app.id),
      });
      this.workers.set(app.id, workers);
    }
    return workers;
  }

  /**
   * (Re)starts the release's process types beside web, in the background; a failure is the operator's to read. Not
   * for an app being stopped or deleted meanwhile (its supervisor says so).
   */
  runWorkers(app: { id: string; slug: string }, release: Release, formation: Formation | null): void {
    const supervisor = this.supervisors.get(app.id);
    if (supervisor?.isStopped) return;
    void this.workersOf(app).roll(release, formation).catch((error) => this.deps.onError(error, `starting the workers of app ${app.slug}`));
  }

  async formationOf(appId: string): Promise<Formation | null> {
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
    const { driver, env } = this.deps;
    if (adopt && !driver.adopt) return null;
    const name = `${type}.${index}`;
    const log = processLog(this.deps.logs, { appId: app.id, kind: "runtime", deploymentId: release.deploymentId, process: name }, () => env.redactorOf(app.id));
    const spec = {
      ...instanceSpec(app, release, {
        index,
        name,
        argv: release.processes?.[type] ?? [],
        vars: await env.of(app.id),
        dataDir: this.deps.paths.data(app.id),
        limits: this.deps.options.limits,
        onOutput: log.sink,
      }),
      process: type,
    };
    const instance = adopt ? await driver.adopt!(spec) : await driver.start(spec);
    void instance?.exited.then(() => log.end());
    return instance;
  }
}
