// One deployment, as the deploy queue runs it (one at a time per app): its context, the pipeline of its app's runner
// (a build, or a rollback to a kept release), then the deployment recorded LIVE; or, when it did not go live, what
// it started undone, its release removed, and the deployment FAILED or CANCELED with the reason. Once its route
// switched it can no longer be canceled, and what fails after the switch is not the deployment's.
import type { Db } from "../../db/client.ts";
import type { AppRunners } from "../app-runners.ts";
import type { CronEntry } from "../cron/entries.ts";
import type { EngineDeps, EngineParts } from "../engine.ts";
import { DeployError } from "../errors.ts";
import { processLog, type ProcessLog } from "../logs/sink.ts";
import type { Release } from "../release.ts";
import { releaseOf } from "../replicas.ts";
import type { Runner } from "../runner.ts";
import type { AppStatus } from "../state.ts";
import { describeFailure } from "./failure.ts";
import { runPipeline, type StepTiming } from "./pipeline.ts";
import type { ReleaseFiles } from "./releases.ts";
import type { DeployContext } from "./types.ts";

export type DeploymentRunnerDeps = Pick<EngineDeps, "db" | "driver" | "options" | "git" | "goingLive" | "maxInstancesOf" | "onError"> &
  EngineParts & { runners: AppRunners; releases: ReleaseFiles };

type DeploymentRow = NonNullable<Awaited<ReturnType<typeof findDeployment>>>;
type DeployedApp = DeployContext["app"];

function findDeployment(db: Db, deploymentId: string) {
  return db.deployment.findUnique({ where: { id: deploymentId }, include: { app: true } });
}

export class DeploymentRunner {
  /** Deployments past their route switch and not yet finished: no longer cancelable. */
  private readonly switched = new Set<string>();

  constructor(private readonly deps: DeploymentRunnerDeps) {}

  /** Whether the deployment took traffic and has not finished yet (a switch is not undone by a cancel). */
  isSwitched(deploymentId: string): boolean {
    return this.switched.has(deploymentId);
  }

  async run(appId: string, deploymentId: string, signal: AbortSignal): Promise<void> {
    const { db, logs, state } = this.deps;
    const deployment = await findDeployment(db, deploymentId);
    if (!deployment) return;
    const app = { id: appId, slug: deployment.app.slug, instances: deployment.app.instances };
    this.deps.health.set(appId, deployment.app.healthcheck);
    const log = processLog(logs, { appId, kind: "build", deploymentId }, () => this.deps.env.redactorOf(appId));
    const supervisor = this.deps.runners.supervisorOf(app);
    const timings: StepTiming[] = [];
    let ctx: DeployContext | undefined;
    let rollbackOf: Release | null = null;
    try {
      await logs.resume(appId);
      const rolledBack = deployment.rollbackOfId ? await db.deployment.findUnique({ where: { id: deployment.rollbackOfId } }) : null;
      rollbackOf = releaseOf(rolledBack);
      ctx = await this.context(deployment, app, supervisor, { rollbackOf, cron: rolledBack?.cron, signal, log });
      await state.updateDeployment(appId, deploymentId, { status: "BUILDING", startedAt: new Date() });
      await state.setAppStatus(appId, "DEPLOYING");
      if (!supervisor.liveRelease) this.deps.routes.unavailable(app.slug, "DEPLOYING");
      if (deployment.rollbackOfId && !rollbackOf) throw new DeployError("That release is no longer kept on disk: deploy again instead.");
      if (rollbackOf) log.system(`Rolling back to the release of deployment ${deployment.rollbackOfId}: no build.`);
      await runPipeline(rollbackOf ? supervisor.pipeline.rollback : supervisor.pipeline.build, ctx, timings, (step) => {
        if (step === "start") return state.updateDeployment(appId, deploymentId, { status: "STARTING" });
        if (ctx!.replaced !== undefined) this.switched.add(deploymentId);
      });
    } catch (error) {
      log.end();
      if (ctx?.replaced === undefined) {
        await this.failed(app, deploymentId, error, { ctx, rollbackOf, signal, timings, statusBefore: deployment.app.status as AppStatus });
        return void (await logs.flush());
      }
      // Past the switch the new release serves: what failed after it (retiring the old one) is not the deployment's.
      this.deps.onError(error, `after deployment ${deploymentId} went live`);
      // The previous release's process types are no longer the app's to stop: stop them here, or nothing would.
      await ctx.workers?.retire(ctx.replacedWorkers ?? []).catch((e) => this.deps.onError(e, `stopping the previous workers of ${app.slug}`));
    }
    await this.wentLive(appId, deploymentId, { ctx: ctx!, rollbackOf, timings, log, previousLive: deployment.app.liveDeploymentId });
  }

  /** What the pipeline's steps read and drive for this deployment. */
  private async context(
    deployment: DeploymentRow,
    app: DeployedApp,
    supervisor: Runner,
    at: { rollbackOf: Release | null; cron: unknown; signal: AbortSignal; log: ProcessLog },
  ): Promise<DeployContext> {
    const { env, paths, runners, options, git, maxInstancesOf } = this.deps;
    const appId = app.id;
    const deploymentId = deployment.id;
    return {
      app,
      deploymentId,
      releaseDir: at.rollbackOf?.dir ?? paths.release(appId, deploymentId),
      previous: supervisor.liveRelease,
      source: deployment.source,
      zip: deployment.source === "zip" ? paths.sourceZip(appId, deploymentId) : undefined,
      git:
        deployment.source === "github" && deployment.repo
          ? { baseUrl: git.baseUrl, repo: deployment.repo, branch: deployment.branch, commit: deployment.commit, token: await git.tokenFor(appId) }
          : undefined,
      recordCommit: (commit, commitMessage) => this.deps.state.updateDeployment(appId, deploymentId, { commit, commitMessage }),
      recordBuilder: (builder) => this.deps.state.updateDeployment(appId, deploymentId, { builder }),
      rollbackOf: at.rollbackOf ?? undefined,
      cron: (at.cron as CronEntry[] | null | undefined) ?? undefined,
      signal: at.signal,
      buildDeadline: Date.now() + options.buildTimeoutMs,
      env: await env.of(appId),
      log: at.log.system,
      output: at.log.sink,
      processOutput: (process) => processLog(this.deps.logs, { appId, kind: "build", deploymentId, process }, () => env.redactorOf(appId)),
      driver: this.deps.driver,
      ...supervisor.deployFields,
      workers: runners.workersOf(app),
      formation: () => runners.formationOf(appId),
      ...(maxInstancesOf ? { maxInstances: () => this.deps.maxInstancesOf!(appId) } : {}),
      buildLimits: options.buildLimits,
      build: { ...options.build, cacheDir: paths.cache(appId) },
    };
  }

  /** The deployment serves: recorded LIVE with its release (what fails here is the operator's to read). */
  private async wentLive(
    appId: string,
    deploymentId: string,
    at: { ctx: DeployContext; rollbackOf: Release | null; timings: StepTiming[]; log: ProcessLog; previousLive: string | null },
  ): Promise<void> {
    const { ctx, rollbackOf, timings, log } = at;
    try {
      log.end();
      await this.deps.goingLive?.(appId, ctx.cron ?? []).catch((error) => this.deps.onError(error, `setting the cron jobs of deployment ${deploymentId}`));
      await this.deps.state.settleDeployment(appId, deploymentId, {
        status: "LIVE",
        finishedAt: new Date(),
        releasePath: ctx.releaseDir,
        web: rollbackOf?.web ?? ctx.plan!.web,
        cron: ctx.cron ?? [],
        processes: rollbackOf ? (rollbackOf.processes ?? null) : (ctx.plan!.processes ?? null),
        steps: timings,
        superseded: at.previousLive !== deploymentId ? at.previousLive : null,
        app: "RUNNING",
        liveDeploymentId: deploymentId,
      });
      log.system(`Deployed: ${timings.map((t) => `${t.name} ${t.ms} ms`).join(", ")}.`);
      await this.deps.releases.prune(appId);
    } catch (error) {
      this.deps.onError(error, `recording deployment ${deploymentId} as live`);
    } finally {
      this.switched.delete(deploymentId);
      await this.deps.logs.flush();
    }
  }

  /** A deployment that did not go live: what it started is stopped, its release removed, and it says why. */
  private async failed(
    app: DeployedApp,
    deploymentId: string,
    error: unknown,
    at: { ctx?: DeployContext; rollbackOf: Release | null; signal: AbortSignal; timings: StepTiming[]; statusBefore: AppStatus },
  ): Promise<void> {
    const supervisor = this.deps.runners.supervisorOf(app);
    await supervisor.abandon(at.ctx?.candidate);
    if (!at.rollbackOf) await this.deps.releases.removeBuilt(app, deploymentId);
    const failure = describeFailure(error, at.signal.aborted);
    if (failure.unexpected) this.deps.onError(error, `deployment ${deploymentId} failed`);
    for (const line of failure.buildLog) this.deps.logs.append(app.id, { kind: "build", deploymentId, ...line });
    const status = statusAfterFailure(supervisor, at.statusBefore, failure.canceled);
    if (status === "FAILED" || status === "CREATED") this.deps.routes.unavailable(app.slug, status, failure.message);
    await this.deps.state.settleDeployment(app.id, deploymentId, {
      status: failure.canceled ? "CANCELED" : "FAILED",
      error: failure.message,
      failureOutput: failure.output,
      finishedAt: new Date(),
      steps: at.timings,
      app: status,
    });
  }
}

/** What the app is once a deployment failed: whatever its previous release is doing. */
function statusAfterFailure(supervisor: Runner, before: AppStatus, canceled: boolean): AppStatus {
  if (supervisor.isStopped || before === "STOPPED") return "STOPPED";
  if (supervisor.running || supervisor.liveRelease?.web.kind === "static") return "RUNNING";
  if (supervisor.liveRelease) return "CRASHED";
  return canceled && before === "CREATED" ? "CREATED" : "FAILED";
}
