// An app's cron jobs (its live release's app.json "cron"): listed with their next minute and last run, and run
// now on request (a run of trigger cron, like the scheduled ones). The scheduling is hosting/cron/scheduler.ts's.
import type { Db } from "../db/client.ts";
import { NotFoundError } from "../errors.ts";
import { CronSchedule } from "../hosting/cron/schedule.ts";
import type { CronJobRow } from "../hosting/cron/scheduler.ts";
import type { AppRow, AppService } from "./apps.ts";
import type { RunRow, RunService } from "./runs.ts";

export interface CronJobView extends CronJobRow {
  /** Null while the app is stopped (its jobs do not run). */
  nextRunAt: Date | null;
}

const IDLE = new Set(["STOPPED", "CREATED"]);

export function createCronService(deps: { db: Db; apps: AppService; runs: RunService; now?: () => Date }) {
  const { db, apps, runs } = deps;
  const now = deps.now ?? (() => new Date());

  function view(app: Pick<AppRow, "status" | "liveDeploymentId">, job: CronJobRow): CronJobView {
    const runs = !IDLE.has(app.status) && app.liveDeploymentId !== null;
    return { ...job, nextRunAt: runs ? CronSchedule.parse(job.schedule).next(now()) : null };
  }

  async function ofApp(app: AppRow): Promise<CronJobView[]> {
    const jobs = await db.cronJob.findMany({ where: { appId: app.id }, orderBy: { position: "asc" } });
    return jobs.map((job) => view(app, job));
  }

  return {
    ofApp,

    listMine: async (ownerId: string, slug: string) => ofApp(await apps.mine(ownerId, slug)),

    /** The job's newest run, scheduled or run now. */
    lastRun: (jobId: string) => db.run.findFirst({ where: { cronJobId: jobId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] }),

    /** Runs the job's command now, whatever its schedule and its previous run (202, like startRun). */
    async runNow(ownerId: string, slug: string, id: string): Promise<RunRow> {
      const app = await apps.mine(ownerId, slug);
      const job = await db.cronJob.findUnique({ where: { id } });
      if (!job || job.appId !== app.id) throw new NotFoundError(`This app has no cron job "${id}".`);
      return runs.startCron(job);
    },
  };
}

export type CronService = ReturnType<typeof createCronService>;
