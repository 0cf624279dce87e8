// Keeps one app's live release running. A new instance takes traffic only once it answers HTTP; the one it
// replaces drains, then stops. An instance that exits on its own is restarted with exponential back-off
// (status CRASHED meanwhile); the back-off resets after a healthy period and on a new release. Runtime
// state (instance, crash count, timers) lives here, in memory, never in the database.
import type { WebProcess } from "./builders/types.ts";
import type { Instance, ReleaseRef, RuntimeDriver, SandboxLimits } from "../platform/runtime/types.ts";
import { DeployError } from "./errors.ts";
import { describeExit, waitUntilAnswering } from "./health.ts";
import { processLog, type ProcessLog } from "./logs/sink.ts";
import type { Redact } from "./logs/redact.ts";
import type { LogStore } from "./logs/store.ts";
import type { MemoryRouteTable } from "./routes.ts";
import type { HostingState } from "./state.ts";
import { randomUUID } from "node:crypto";
import path from "node:path";

export interface Release {
  deploymentId: string;
  dir: string;
  web: WebProcess;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

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
  envOf(appId: string): Promise<Record<string, string>>;
  /** The app's own data directory, bound read-write into its processes (its SQLite databases). */
  dataDirOf(appId: string): string;
  redactorOf(appId: string): Redact;
  clock: Clock;
  /** Unexpected failures (for the operator's log, never the app's). */
  onError(error: unknown, message: string): void;
}

export interface Candidate {
  release: Release;
  instance: Instance | null;
  target: { kind: "proxy"; host: string; port: number } | { kind: "static"; root: string };
  log: ProcessLog | null;
  startedAt: number;
  /** Set when its process exited (how), even before it took traffic. */
  exit?: string;
  /** The app's env vars version it was started with. */
  envVersion: number;
}

export class AppSupervisor {
  private current: Candidate | null = null;
  /** The release to bring back after a crash, while no instance runs. */
  private crashed: Release | null = null;
  private crashes = 0;
  private restartTimer: unknown = null;
  private stopped = false;
  /** Bumped by every switch of the route and every stop: a relaunch started before one of them must not go live. */
  private epoch = 0;
  /** Counts relaunches: of several in flight, only the newest may go live (say, two env changes in a row). */
  private relaunches = 0;
  /** Bumped when the env vars change: an instance started with older ones is relaunched once it goes live. */
  private envVersion = 0;

  constructor(
    private readonly deps: SupervisorDeps,
    readonly app: { id: string; slug: string },
  ) {}

  get liveRelease(): Release | null {
    return this.current?.release ?? this.crashed;
  }

  get instance(): Instance | null {
    return this.current?.instance ?? null;
  }

  /** Whether an instance of the live release runs. */
  get running(): boolean {
    return !!this.current?.instance;
  }

  /** Failures in a row; an instance up for the healthy period has cleared them. */
  get restarts(): number {
    const up = this.current && this.deps.clock.now() - this.current.startedAt >= this.deps.backoff.healthyAfterMs;
    return up ? 0 : this.crashes;
  }

  /** Stopped by its owner (or being deleted): nothing restarts it until the next deploy or restart. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** New env vars: what is running (or starting) now has the old ones. */
  envChanged(): void {
    this.envVersion += 1;
  }

  /** Spawns the release (nothing to spawn for a static site). Resolves once spawned, not once answering. */
  async start(release: Release): Promise<Candidate> {
    const startedAt = this.deps.clock.now();
    const envVersion = this.envVersion;
    if (release.web.kind === "static") {
      return { release, instance: null, target: { kind: "static", root: path.resolve(release.dir, release.web.root) }, log: null, startedAt, envVersion };
    }
    const log = processLog(this.deps.logs, { appId: this.app.id, kind: "runtime", deploymentId: release.deploymentId }, () => this.deps.redactorOf(this.app.id));
    const instance = await this.deps.driver.start({
      appKey: this.app.id,
      instanceId: randomUUID(),
      workDir: release.dir,
      dataDir: this.deps.dataDirOf(this.app.id),
      argv: release.web.argv,
      env: await this.deps.envOf(this.app.id),
      limits: this.deps.limits,
      onOutput: log.sink,
      release: releaseRef(this.app.slug, release.dir),
    });
    const candidate: Candidate = { release, instance, target: { kind: "proxy", ...instance.target }, log, startedAt, envVersion };
    void instance.exited.then((exit) => {
      log.end();
      candidate.exit = describeExit(exit);
      if (this.current === candidate) this.onCrash(candidate, candidate.exit);
    });
    return candidate;
  }

  async waitHealthy(candidate: Candidate, signal?: AbortSignal): Promise<void> {
    if (candidate.instance) await waitUntilAnswering(candidate.instance, this.deps.startTimeoutMs, signal);
  }

  /** Sends traffic to the candidate; returns the one it replaced, still running until retired. */
  promote(candidate: Candidate): Candidate | null {
    const previous = this.current;
    if (this.liveRelease?.deploymentId !== candidate.release.deploymentId) this.crashes = 0;
    this.cancelRestart();
    this.epoch += 1;
    this.current = candidate;
    this.crashed = null;
    this.stopped = false;
    this.deps.routes.serve(this.app.slug, candidate.target);
    // It died between its answer and the switch: a crash like any other.
    if (candidate.exit) this.onCrash(candidate, candidate.exit);
    // The env vars changed while it started: start it again with the new ones.
    else if (candidate.envVersion !== this.envVersion) void this.bringBack(candidate.release);
    return previous;
  }

  /** Resolves once the edge (EDGE=caddy) routes as the table says: after a switch, before the old instance retires. */
  routesSettled(): Promise<void> {
    return this.deps.routes.flush();
  }

  /** Lets a replaced instance finish what it is serving, then stops it. */
  async retire(previous: Candidate | null): Promise<void> {
    if (!previous?.instance) return;
    await new Promise((resolve) => this.deps.clock.setTimeout(() => resolve(null), this.deps.drainMs));
    await previous.instance.stop(this.deps.stopGraceMs);
  }

  /** A candidate that will not go live. */
  async discard(candidate: Candidate): Promise<void> {
    await candidate.instance?.stop(this.deps.stopGraceMs);
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
    await this.deps.state.setAppStatus(this.app.id, "RUNNING", release.deploymentId);
    await this.retire(previous);
  }

  /** Stops serving: the route shows the app as stopped, and no restart happens until the next start. */
  async stop(status: "STOPPED" | "FAILED" = "STOPPED"): Promise<void> {
    this.stopped = true;
    this.epoch += 1;
    this.cancelRestart();
    const running = this.current;
    this.crashed = running?.release ?? this.crashed;
    this.current = null;
    this.deps.routes.unavailable(this.app.slug, status);
    // The edge stops sending requests before the instance stops.
    await this.deps.routes.flush();
    await running?.instance?.stop(this.deps.stopGraceMs);
  }

  /** Relaunches a release (platform boot); if it will not start, retries with back-off like a crash. */
  async bringBack(release: Release): Promise<void> {
    if (!this.current) this.crashed = release;
    try {
      await this.relaunch(release);
    } catch (error) {
      const why = this.didNotStart(error);
      if (this.stopped) return;
      if (!this.current) return this.retryLater(release, why);
      this.deps.logs.append(this.app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: `Restart failed: ${why}. The running instance keeps serving.` });
    }
  }

  /** Why a start failed, in words for the app's log (an unexpected error goes to the operator's log instead). */
  private didNotStart(error: unknown): string {
    if (error instanceof DeployError) return `it did not start: ${error.message}`;
    this.deps.onError(error, `starting app ${this.app.slug} failed`);
    return "Slipway could not start it (the platform's log says why)";
  }

  private onCrash(candidate: Candidate, how: string): void {
    if (this.deps.clock.now() - candidate.startedAt >= this.deps.backoff.healthyAfterMs) this.crashes = 0;
    this.current = null;
    this.crashed = candidate.release;
    this.retryLater(candidate.release, `the process exited (${how})`);
  }

  /** Status CRASHED, then another start after a delay that doubles with each failure in a row. */
  private retryLater(release: Release, why: string): void {
    this.crashes += 1;
    const delay = Math.min(this.deps.backoff.baseMs * 2 ** (this.crashes - 1), this.deps.backoff.maxMs);
    this.deps.logs.append(this.app.id, {
      kind: "runtime",
      stream: "system",
      deploymentId: release.deploymentId,
      line: `Crashed: ${why}. Restarting in ${formatDelay(delay)} (failure ${this.crashes} in a row).`,
    });
    this.deps.routes.unavailable(this.app.slug, "CRASHED");
    void this.deps.state.setAppStatus(this.app.id, "CRASHED");
    this.cancelRestart();
    this.restartTimer = this.deps.clock.setTimeout(() => {
      this.restartTimer = null;
      if (this.stopped || this.crashed !== release) return;
      this.relaunch(release).catch((error: unknown) => {
        if (!this.stopped && this.crashed === release) this.retryLater(release, this.didNotStart(error));
      });
    }, delay);
  }

  private cancelRestart(): void {
    if (this.restartTimer !== null) this.deps.clock.clearTimeout(this.restartTimer);
    this.restartTimer = null;
  }
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** The release a folder holds: named after the deployment that built it (a rollback reuses its folder, and its image). */
export function releaseRef(slug: string, dir: string): ReleaseRef {
  return { slug, deploymentId: path.basename(dir) };
}
