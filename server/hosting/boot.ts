// When an instance starts leading (a platform restart, or another instance's failover; HostingEngine.boot): what an
// earlier leader left running as it should is adopted and serves on, the rest is reaped, the deployments it was
// running fail as interrupted, the apps that were running come back, and the deployments still waiting run.
import fs from "node:fs/promises";
import type { Db } from "../db/client.ts";
import type { AppRunners } from "./app-runners.ts";
import type { ReleaseFiles } from "./deploy/releases.ts";
import type { EngineDeps, EngineParts } from "./engine.ts";
import type { Formation } from "./processes/workers.ts";
import { releaseOf } from "./replicas.ts";
import type { AppStatus } from "./state.ts";

export type BootDeps = Pick<EngineDeps, "db" | "driver" | "onError"> &
  Pick<EngineParts, "paths" | "health" | "state" | "routes"> & {
    runners: AppRunners;
    releases: ReleaseFiles;
    /** Queues a deployment again (one still waiting when the earlier leader stopped). */
    enqueue(app: { id: string; slug: string }, deploymentId: string): Promise<void>;
  };

/** The apps whose web (or other process types) kept running through the restart and serve again. */
interface Adopted {
  web: Set<string>;
  workers: Set<string>;
}

const INTERRUPTED = "Interrupted: the platform restarted during this deployment. Deploy again.";
const UNFINISHED = ["QUEUED", "BUILDING", "STARTING"] as const;

export async function bootHosting(deps: BootDeps): Promise<void> {
  const { db } = deps;
  // Uploads staged by requests that never finished.
  await fs.rm(deps.paths.uploads, { recursive: true, force: true });
  for (const app of await db.app.findMany({ select: { id: true, healthcheck: true } })) deps.health.set(app.id, app.healthcheck);
  const adopted = await adoptRunning(deps);
  await deps.driver.reap();
  const orchestrator = deps.driver.orchestrator;
  if (orchestrator) {
    const kept = new Set((await db.app.findMany({ select: { id: true } })).map((a) => a.id));
    await orchestrator.reap((appKey) => kept.has(appKey));
  }
  const waiting = await settleInterrupted(deps);
  for (const app of await appsToBringBack(db)) await bringBack(deps, app, adopted);
  for (const d of waiting) await deps.enqueue(d.app, d.id);
}

/** The apps whose instances (or service) an earlier platform left running serve again, before the reap. */
async function adoptRunning(deps: BootDeps): Promise<Adopted> {
  const adopted: Adopted = { web: new Set<string>(), workers: new Set<string>() };
  const apps = await deps.db.app.findMany({ where: { status: { not: "STOPPED" } }, include: { liveDeployment: true } });
  await Promise.all(
    apps.map(async (app) => {
      const release = releaseOf(app.liveDeployment);
      if (!release) return;
      const failed = (error: unknown) => {
        deps.onError(error, `adopting the instances of app ${app.slug}`);
        return false;
      };
      // A sleeping app's web has no instance to adopt (an orchestrator's service scaled to 0 must stay so).
      const [web, workers] = await Promise.all([
        app.status === "SLEEPING" ? false : deps.runners.supervisorOf(app).adopt(release).catch(failed),
        deps.runners.workersOf(app).adopt(release, app.formation as Formation | null).catch(failed),
      ]);
      if (web) adopted.web.add(app.id);
      if (workers) adopted.workers.add(app.id);
    }),
  );
  return adopted;
}

/**
 * Deployments an earlier leader was building fail as interrupted; the ones still waiting (none of their work done)
 * are returned, to be queued again, when their source is here (a repository, a kept release, a zip received here).
 */
async function settleInterrupted(deps: BootDeps) {
  const unfinished = await deps.db.deployment.findMany({
    where: { status: { in: [...UNFINISHED] } },
    orderBy: { createdAt: "asc" },
    select: { id: true, appId: true, status: true, source: true, rollbackOfId: true, app: { select: { id: true, slug: true } } },
  });
  const waiting: typeof unfinished = [];
  for (const d of unfinished) {
    if (d.status === "QUEUED" && (await sourceIsHere(deps, d))) {
      waiting.push(d);
      continue;
    }
    await deps.state.updateDeployment(d.appId, d.id, { status: "FAILED", error: INTERRUPTED, finishedAt: new Date() });
    if (!d.rollbackOfId) await deps.releases.removeSource(d.appId, d.id);
  }
  return waiting;
}

async function sourceIsHere(deps: BootDeps, d: { id: string; appId: string; source: string; rollbackOfId: string | null }): Promise<boolean> {
  if (d.source !== "zip" || d.rollbackOfId) return true;
  return fs.access(deps.paths.sourceZip(d.appId, d.id)).then(
    () => true,
    () => false,
  );
}

function appsToBringBack(db: Db) {
  return db.app.findMany({ include: { liveDeployment: true, deployments: { orderBy: { createdAt: "desc" }, take: 1, select: { error: true } } } });
}

/** An app as it was: its live release running again (unless adopted), or its page saying why it does not run. */
async function bringBack(deps: BootDeps, app: Awaited<ReturnType<typeof appsToBringBack>>[number], adopted: Adopted): Promise<void> {
  const release = releaseOf(app.liveDeployment);
  const status = app.status as AppStatus;
  if (!release) {
    // Nothing to bring back: a deploy or a start was under way, or the release is gone.
    const settled = status === "CREATED" || status === "STOPPED" ? status : "FAILED";
    if (settled !== status) await deps.state.setAppStatus(app.id, settled);
    deps.routes.unavailable(app.slug, settled, app.deployments[0]?.error ?? undefined);
    return;
  }
  if (status === "STOPPED") {
    deps.routes.unavailable(app.slug, "STOPPED");
    return;
  }
  const { runners } = deps;
  if (status === "SLEEPING") {
    // Asleep it stays: the next request wakes it (its other types run unless they sleep with it).
    deps.routes.stopped(app.slug, "SLEEPING");
    if (adopted.workers.has(app.id)) void runners.workersOf(app).resume().catch((error) => deps.onError(error, `starting the workers of app ${app.slug}`));
    else if (!app.sleepWorkers) runners.runWorkers(app, release, app.formation as Formation | null);
    return;
  }
  if (adopted.workers.has(app.id)) void runners.workersOf(app).resume().catch((error) => deps.onError(error, `starting the workers of app ${app.slug}`));
  else runners.runWorkers(app, release, app.formation as Formation | null);
  if (adopted.web.has(app.id)) return;
  deps.routes.unavailable(app.slug, "DEPLOYING");
  const supervisor = runners.supervisorOf(app);
  void supervisor.bringBack(release).catch((error) => deps.onError(error, `bringing back app ${app.slug}`));
}
