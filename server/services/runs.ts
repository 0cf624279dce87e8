// One-off runs of an app's owner: started in the app's live release (202: the status and the output tell the
// rest), listed newest first, canceled. While they run they count against the owner's maxInstances together
// with the app's own instances. The processes themselves are hosting/runs/runner.ts's.
import type { Db } from "../db/client.ts";
import { ConflictError, NotFoundError, QuotaExceededError } from "../errors.ts";
import { releaseOf } from "../hosting/replicas.ts";
import { instancesBesideWeb, type Formation } from "../hosting/processes/workers.ts";
import { FINISHED_RUN, type RunStatus } from "../hosting/runs/outcome.ts";
import type { AttachedTerminal, OneOffRuns } from "../hosting/runs/runner.ts";
import type { TerminalSize } from "../hosting/runs/terminal.ts";
import type { Release } from "../hosting/supervisor.ts";
import type { AccountService } from "./accounts.ts";
import type { AppRow, AppService } from "./apps.ts";
import type { Page } from "./pages.ts";
import { RUN_TIMEOUT_SECONDS, runRules } from "./run-rules.ts";
import { validate } from "./validation.ts";

export interface StartRunInput {
  command: string;
  timeoutSeconds?: number | null;
  /** Waits (QUEUED) for a terminal to attach over a WebSocket, then runs on a pty of cols × rows (80 × 24 by default). */
  interactive?: boolean | null;
  cols?: number | null;
  rows?: number | null;
}

export type RunRow = Awaited<ReturnType<Db["run"]["findUniqueOrThrow"]>>;

const UNFINISHED: RunStatus[] = ["QUEUED", "RUNNING"];
/** App statuses whose instances run (a stopped app's, or one that never started, hold none). */
const INSTANCES_RUN = new Set(["RUNNING", "DEPLOYING", "CRASHED"]);

export function createRunService(deps: { db: Db; apps: AppService; accounts: AccountService; runner: OneOffRuns; terminals: boolean }) {
  const { db, apps, accounts, runner, terminals } = deps;

  async function ofApp(appId: string, id: string): Promise<RunRow> {
    const run = await db.run.findUnique({ where: { id } });
    if (!run || run.appId !== appId) throw new NotFoundError(`This app has no run "${id}".`);
    return run;
  }

  /** The app's instances (a static site has none) and its unfinished runs, plus this one, within maxInstances. */
  async function checkQuota(ownerId: string, app: AppRow, release: Release): Promise<void> {
    const { maxInstances } = await accounts.quotaOf(ownerId);
    const running = INSTANCES_RUN.has(app.status);
    const web = running && release.web.kind === "process" ? app.instances : 0;
    const others = running ? instancesBesideWeb(Object.keys(release.processes ?? {}), app.formation as Formation | null) : 0;
    const instances = web + others;
    const runs = await db.run.count({ where: { appId: app.id, status: { in: UNFINISHED } } });
    if (instances + runs + 1 > maxInstances) {
      throw new QuotaExceededError(
        `${app.slug} runs ${instances} instances and ${runs} runs: one more would go past your maxInstances of ${maxInstances}. Wait for a run to finish, scale the app down, or ask for a higher maxInstances limit.`,
      );
    }
  }

  async function checkAttachable(ownerId: string, runId: string): Promise<void> {
    const run = await db.run.findUnique({ where: { id: runId }, include: { app: { select: { slug: true } } } });
    if (!run) throw new NotFoundError(`There is no run "${runId}".`);
    await apps.mine(ownerId, run.app.slug);
    if (runner.isHeld(run.id)) return;
    throw new ConflictError(run.status === "QUEUED" ? "This run waits for its terminal on another Slipway instance: attach there." : `This run does not wait for a terminal (${run.status}).`);
  }

  const list = (appId: string, page: Page) =>
    db.run.findMany({
      where: { appId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: page.first,
      ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
    });

  /**
   * Starts a checked command in the app's live release (a cron job's when cronJobId is given); answers once it runs,
   * or, on a terminal, once it waits for the terminal to attach.
   */
  async function launch(app: AppRow, what: { command: string; timeoutSeconds: number; cronJobId?: string }, terminal?: TerminalSize): Promise<RunRow> {
    const live = app.liveDeploymentId ? await db.deployment.findUnique({ where: { id: app.liveDeploymentId } }) : null;
    const release = releaseOf(live);
    if (!release) throw new ConflictError("This app has no live release to run the command in: deploy it first.");
    await checkQuota(app.ownerId, app, release);
    const env = Object.fromEntries((await db.envVar.findMany({ where: { appId: app.id }, select: { key: true, value: true } })).map((v) => [v.key, v.value]));
    const run = await db.run.create({ data: { appId: app.id, deploymentId: release.deploymentId, trigger: what.cronJobId ? "cron" : "api", instanceId: runner.instanceId, ...what } });
    if (terminal) runner.hold({ app, run, release, env }, terminal);
    else await runner.start({ app, run, release, env });
    return db.run.findUniqueOrThrow({ where: { id: run.id } });
  }

  return {
    ofApp,
    list,

    latest: (appId: string) => db.run.findFirst({ where: { appId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] }),

    async listMine(ownerId: string, slug: string, page: Page): Promise<RunRow[]> {
      const app = await apps.mine(ownerId, slug);
      return list(app.id, page);
    },

    async mine(ownerId: string, slug: string, id: string): Promise<RunRow> {
      return ofApp((await apps.mine(ownerId, slug)).id, id);
    },

    /** Starts `command` in the app's live release; answers once it runs (RUNNING). */
    async start(ownerId: string, slug: string, input: StartRunInput): Promise<RunRow> {
      const app = await apps.mine(ownerId, slug);
      validate(input as unknown as Record<string, unknown>, runRules);
      if (input.interactive && !terminals) {
        throw new ConflictError("This platform's runtime cannot attach a terminal to a run yet: run the command without one (slipway run --no-tty).");
      }
      const terminal = input.interactive ? { cols: input.cols ?? 80, rows: input.rows ?? 24 } : undefined;
      return launch(app, { command: input.command, timeoutSeconds: input.timeoutSeconds ?? RUN_TIMEOUT_SECONDS.default }, terminal);
    },

    /** Whether the run waits for its terminal on this platform instance (Run.attachUrl). */
    waitsForTerminal: (runId: string) => runner.isHeld(runId),

    /** The caller's run (404 otherwise), waiting for its terminal on this instance (409 otherwise). */
    checkAttachable,

    /** An interactive run's terminal went away: what still runs shortly after is canceled. */
    hungUp: (runId: string) => runner.hungUp(runId),

    /** Runs a run that waits for its terminal on `terminal`. */
    async attach(ownerId: string, runId: string, terminal: AttachedTerminal): Promise<void> {
      await checkAttachable(ownerId, runId);
      if (!(await runner.attach(runId, terminal))) throw new ConflictError("This run no longer waits for a terminal: another one attached first.");
    },

    /** A run of a cron job (trigger cron): its command and timeout were checked when its release was built. */
    async startCron(job: { id: string; appId: string; command: string; timeoutSeconds: number }): Promise<RunRow> {
      return launch(await db.app.findUniqueOrThrow({ where: { id: job.appId } }), { command: job.command, timeoutSeconds: job.timeoutSeconds, cronJobId: job.id });
    },

    /** Kills the run with every process it started (CANCELED); 409 once it has finished. */
    async cancel(ownerId: string, slug: string, id: string): Promise<RunRow> {
      const run = await ofApp((await apps.mine(ownerId, slug)).id, id);
      if (FINISHED_RUN.has(run.status)) throw new ConflictError(`This run has already finished (${run.status}).`);
      if (!(await runner.cancel(run.id))) {
        // Not running in this process (it never started): nothing to kill, only the record to settle.
        await db.run.updateMany({ where: { id: run.id, status: { in: UNFINISHED } }, data: { status: "CANCELED", error: "Canceled.", finishedAt: new Date() } });
      }
      return db.run.findUniqueOrThrow({ where: { id: run.id } });
    },

    /** The app is being deleted: its runs are killed first. */
    cancelAll: (appId: string) => runner.cancelAll(appId),
  };
}

export type RunService = ReturnType<typeof createRunService>;
