// One-off runs (`slipway run`): a command of the user's, as `/bin/sh -c <command>` inside the app's own sandbox
// (the same driver, limits, env vars and data folder as its processes), in its live release, once, to its end or
// its timeout. The shell runs inside the sandbox, never on the host. Its output is the app's log of kind `run`;
// its status is the Run row, written here. It knows apps by id; owners, quotas and checks are services/runs.ts's.
import type { Db } from "../../db/client.ts";
import type { PubSub } from "../../platform/pubsub/index.ts";
import type { RunResult, RuntimeDriver, SandboxLimits } from "../../platform/runtime/types.ts";
import { processEnv } from "../builders/types.ts";
import { processLog, type ProcessLog } from "../logs/sink.ts";
import { redactorFor } from "../logs/redact.ts";
import type { LogStore } from "../logs/store.ts";
import { releaseRef } from "../replicas.ts";
import { appTopic } from "../state.ts";
import type { Release } from "../supervisor.ts";
import { runOutcome, type RunOutcome, type RunStatus } from "./outcome.ts";

export interface RunnerDeps {
  db: Db;
  driver: RuntimeDriver;
  logs: LogStore;
  pubsub: PubSub;
  /** The app's processes' limits (APP_MEMORY_MB, …): a run is one of its processes while it runs. */
  limits: SandboxLimits;
  dataDirOf(appId: string): string;
  onError(error: unknown, message: string): void;
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
  private stopping = false;

  constructor(private readonly deps: RunnerDeps) {}

  /** Runs left unfinished by an earlier platform process end FAILED, saying why (their processes were reaped). */
  async failInterrupted(): Promise<void> {
    await this.deps.db.run.updateMany({ where: { status: { in: UNFINISHED } }, data: { status: "FAILED", error: INTERRUPTED, finishedAt: new Date() } });
  }

  /** Marks the run RUNNING and starts it; resolves once it runs, its end is recorded when it comes. */
  async start(request: RunRequest): Promise<void> {
    const { app, run } = request;
    await this.record(app.id, run.id, { status: "RUNNING", startedAt: new Date() });
    await this.deps.logs.resume(app.id);
    const redact = redactorFor(Object.values(request.env));
    const log = processLog(this.deps.logs, { appId: app.id, kind: "run", deploymentId: null, runId: run.id, process: run.cronJobId ? `cron.${run.cronJobId}` : `run.${run.id}` }, () => redact);
    log.system(`Running \`${run.command}\` in the release of deployment ${request.release.deploymentId}.`);
    const controller = new AbortController();
    const done = this.execute(request, log, controller.signal).finally(() => this.running.delete(run.id));
    this.running.set(run.id, { appId: app.id, controller, done });
  }

  /** Kills the run's whole process tree; false when it does not run here. Resolves once its end is recorded. */
  async cancel(runId: string): Promise<boolean> {
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
    await Promise.all([...this.running.keys()].map((id) => this.cancel(id)));
  }

  private async execute({ app, run, release, env }: RunRequest, log: ProcessLog, signal: AbortSignal): Promise<void> {
    let outcome: RunOutcome;
    try {
      const result: RunResult = await this.deps.driver.run({
        appKey: app.id,
        workDir: release.dir,
        dataDir: this.deps.dataDirOf(app.id),
        argv: ["/bin/sh", "-c", run.command],
        env: processEnv(release.web, env),
        limits: this.deps.limits,
        onOutput: log.sink,
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
  }

  private async record(appId: string, runId: string, data: { status: RunStatus; startedAt?: Date; finishedAt?: Date; exitCode?: number | null; error?: string | null }) {
    await this.deps.db.run.updateMany({ where: { id: runId }, data });
    await this.deps.pubsub.publish(appTopic(appId), { at: Date.now() }).catch(() => {});
  }
}
