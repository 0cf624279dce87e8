// One-off runs (`slipway run`): a command of the user's, as `/bin/sh -c <command>` inside the app's own sandbox
// (the same driver, limits, env vars and data folder as its processes), in its live release, once, to its end or
// its timeout. The shell runs inside the sandbox, never on the host. Its output is the app's log of kind `run`;
// its status is the Run row, written here. It knows apps by id; owners, quotas and checks are services/runs.ts's.
// An interactive run waits (QUEUED) for its terminal to attach, then runs on a pty the driver makes inside the
// sandbox, its output going both to the terminal and to the run log.
import type { Db } from "../../db/client.ts";
import { systemClock, type Clock } from "../clock.ts";
import type { PubSub } from "../../platform/pubsub/index.ts";
import type { RunResult, RuntimeDriver, SandboxLimits } from "../../platform/runtime/types.ts";
import { processEnv } from "../builders/types.ts";
import { processLog, type ProcessLog } from "../logs/sink.ts";
import { redactorFor } from "../logs/redact.ts";
import type { LogStore } from "../logs/store.ts";
import { releaseRef } from "../replicas.ts";
import { appTopic } from "../state.ts";
import type { Release } from "../release.ts";
import { runOutcome, type RunOutcome, type RunStatus } from "./outcome.ts";
import type { TerminalChannel, TerminalSize } from "./terminal.ts";

export interface RunnerDeps {
  db: Db;
  driver: RuntimeDriver;
  logs: LogStore;
  pubsub: PubSub;
  /** The app's processes' limits (APP_MEMORY_MB, …): a run is one of its processes while it runs. */
  limits: SandboxLimits;
  dataDirOf(appId: string): string;
  onError(error: unknown, message: string): void;
  /** This Slipway instance (clusterInstanceId), recorded on the runs it starts. */
  instanceId: string;
  /** What an interactive run's wait for its terminal is timed on. */
  clock?: Clock;
  /** A run ended FAILED or TIMED_OUT (notifications). */
  runFailed?(appId: string, runId: string): void;
}

/** How long an interactive run waits for its terminal before it fails. */
export const ATTACH_TIMEOUT_MS = 60_000;
/** How long a command that outlives its terminal's SIGHUP may take to end by itself. */
export const HANGUP_GRACE_MS = 5_000;

/** The client's end of an interactive run: what it types, and where its output and its end go. */
export interface AttachedTerminal {
  /** What the client types and its window's size; its hang-up ends the command (SIGHUP). */
  channel: TerminalChannel;
  output(chunk: Buffer): void;
  ended(outcome: RunOutcome): void;
}

interface Held {
  request: RunRequest;
  size: TerminalSize;
  timer: unknown;
}

export interface RunRequest {
  app: { id: string; slug: string };
  run: { id: string; command: string; timeoutSeconds: number; cronJobId?: string | null };
  release: Release;
  /** The app's env vars. */
  env: Record<string, string>;
}

const INTERRUPTED = "Interrupted: the platform restarted while it ran. It was not run again.";
const UNFINISHED: RunStatus[] = ["QUEUED", "RUNNING"];

interface Running {
  appId: string;
  controller: AbortController;
  done: Promise<void>;
}

export class OneOffRuns {
  private readonly running = new Map<string, Running>();
  /** Interactive runs waiting for their terminal. */
  private readonly held = new Map<string, Held>();
  private stopping = false;
  private readonly clock: Clock;
  /** When this process started running runs: its own runs created earlier are an earlier boot's. */
  private readonly bootedAt = new Date();

  constructor(private readonly deps: RunnerDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  /** Runs left unfinished by an earlier platform process end FAILED, saying why (their processes were reaped). */
  /**
   * Fails the unfinished runs that nothing runs any more: this instance's from an earlier boot (not the ones this
   * process runs), and those of every instance not in `alive` (the others seen within a lease term): they died with it.
   */
  async failInterrupted(alive: readonly string[]): Promise<void> {
    const self = this.deps.instanceId;
    // This process's own runs are its to finish (one just created is not in `running` yet): only an earlier boot's fail.
    const gone = { OR: [{ instanceId: null }, { instanceId: { notIn: [...alive, self] } }, { instanceId: self, createdAt: { lt: this.bootedAt } }] };
    await this.deps.db.run.updateMany({ where: { status: { in: UNFINISHED }, ...gone }, data: { status: "FAILED", error: INTERRUPTED, finishedAt: new Date() } });
  }

  get instanceId(): string {
    return this.deps.instanceId;
  }

  /** An interactive run waits (QUEUED) for attach(); unattached for ATTACH_TIMEOUT_MS, it fails saying so. */
  hold(request: RunRequest, size: TerminalSize): void {
    const timer = this.clock.setTimeout(() => {
      if (!this.held.delete(request.run.id)) return;
      const error = `No terminal attached within ${ATTACH_TIMEOUT_MS / 1000} s: run it again from a terminal (slipway run).`;
      void this.record(request.app.id, request.run.id, { status: "FAILED", error, finishedAt: new Date() }).catch((e) => this.deps.onError(e, `failing run ${request.run.id}`));
    }, ATTACH_TIMEOUT_MS);
    this.held.set(request.run.id, { request, size, timer });
  }

  /** Whether the run waits for its terminal here. */
  isHeld(runId: string): boolean {
    return this.held.has(runId);
  }

  /** Starts a held run on `terminal`; false when it is not waiting here (attached already, failed, canceled). */
  async attach(runId: string, terminal: AttachedTerminal): Promise<boolean> {
    const held = this.held.get(runId);
    if (!held) return false;
    this.held.delete(runId);
    this.clock.clearTimeout(held.timer);
    terminal.channel.startAt(held.size);
    try {
      await this.start(held.request, terminal);
    } catch (error) {
      await this.record(held.request.app.id, runId, { status: "FAILED", error: "It could not be started. Run it again.", finishedAt: new Date() });
      throw error;
    }
    return true;
  }

  /**
   * The terminal of a running interactive run went away: the command got SIGHUP; what still runs after
   * HANGUP_GRACE_MS is canceled with its whole process tree.
   */
  hungUp(runId: string): void {
    if (!this.running.has(runId)) return;
    this.clock.setTimeout(() => void this.cancel(runId), HANGUP_GRACE_MS);
  }

  /** Marks the run RUNNING and starts it; resolves once it runs, its end is recorded when it comes. */
  async start(request: RunRequest, terminal?: AttachedTerminal): Promise<void> {
    const { app, run } = request;
    await this.record(app.id, run.id, { status: "RUNNING", startedAt: new Date() });
    await this.deps.logs.resume(app.id);
    const redact = redactorFor(Object.values(request.env));
    const log = processLog(this.deps.logs, { appId: app.id, kind: "run", deploymentId: null, runId: run.id, process: run.cronJobId ? `cron.${run.cronJobId}` : `run.${run.id}` }, () => redact);
    log.system(`Running \`${run.command}\` in the release of deployment ${request.release.deploymentId}.`);
    const controller = new AbortController();
    const done = this.execute(request, log, controller.signal, terminal).finally(() => this.running.delete(run.id));
    this.running.set(run.id, { appId: app.id, controller, done });
  }

  /** Kills the run's whole process tree; false when it does not run here. Resolves once its end is recorded. */
  async cancel(runId: string): Promise<boolean> {
    const held = this.held.get(runId);
    if (held) {
      this.held.delete(runId);
      this.clock.clearTimeout(held.timer);
    }
    const running = this.running.get(runId);
    if (!running) return false;
    running.controller.abort();
    await running.done;
    return true;
  }

  /** The app is being deleted: its runs are killed. */
  async cancelAll(appId: string): Promise<void> {
    await Promise.all([...this.running.entries()].filter(([, r]) => r.appId === appId).map(([id]) => this.cancel(id)));
  }

  /** The platform stops: what still runs is killed and recorded FAILED (a restart does not run it again). */
  async close(): Promise<void> {
    this.stopping = true;
    for (const held of this.held.values()) this.clock.clearTimeout(held.timer);
    await Promise.all([...this.running.keys()].map((id) => this.cancel(id)));
  }

  private async execute({ app, run, release, env }: RunRequest, log: ProcessLog, signal: AbortSignal, terminal?: AttachedTerminal): Promise<void> {
    let outcome: RunOutcome;
    try {
      const result: RunResult = await this.deps.driver.run({
        appKey: app.id,
        workDir: release.dir,
        dataDir: this.deps.dataDirOf(app.id),
        argv: ["/bin/sh", "-c", run.command],
        env: processEnv(release.web, env),
        ...(terminal ? { terminal: terminal.channel } : {}),
        limits: this.deps.limits,
        onOutput: terminal
          ? (stream, chunk) => {
              terminal.output(chunk);
              log.sink(stream, chunk);
            }
          : log.sink,
        release: releaseRef(app.slug, release.dir),
        timeoutMs: run.timeoutSeconds * 1000,
        signal,
      });
      outcome = runOutcome(result, run.timeoutSeconds, this.stopping);
    } catch (error) {
      this.deps.onError(error, `starting run ${run.id} of app ${app.slug}`);
      const message = "The sandbox could not be started. Try again; if it keeps failing, tell the platform's operator.";
      outcome = { status: "FAILED", exitCode: null, error: message, line: message };
    }
    log.end();
    log.system(outcome.line);
    // Every line is stored before the run reads as finished: whoever waits on its status then has its whole output.
    await this.deps.logs.flush();
    await this.record(app.id, run.id, { status: outcome.status, exitCode: outcome.exitCode, error: outcome.error, finishedAt: new Date() }).catch((error) =>
      this.deps.onError(error, `recording the end of run ${run.id}`),
    );
    terminal?.ended(outcome);
  }

  private async record(appId: string, runId: string, data: { status: RunStatus; startedAt?: Date; finishedAt?: Date; exitCode?: number | null; error?: string | null }) {
    await this.deps.db.run.updateMany({ where: { id: runId }, data });
    if (data.status === "FAILED" || data.status === "TIMED_OUT") this.deps.runFailed?.(appId, runId);
    await this.deps.pubsub.publish(appTopic(appId), { at: Date.now() }).catch(() => {});
  }
}
