// An app's CronJob rows follow its live release: the jobs of that release's app.json, no others. Set as a release
// goes live (a deploy, a rollback) and at boot; an app without a live release has none.
import type { Db } from "../../db/client.ts";
import { cronJobId, type CronEntry } from "./entries.ts";

export async function syncCronJobs(db: Db, appId: string, entries: CronEntry[]): Promise<void> {
  const jobs = entries.map((entry, position) => ({ id: cronJobId(appId, entry), appId, ...entry, position }));
  await db.$transaction([
    db.cronJob.deleteMany({ where: { appId, id: { notIn: jobs.map((j) => j.id) } } }),
    ...jobs.map((job) => db.cronJob.upsert({ where: { id: job.id }, create: job, update: { position: job.position, timeoutSeconds: job.timeoutSeconds } })),
  ]);
}

/** At boot: every app's jobs from its live release (kept in Deployment.cron). */
export async function syncAllCronJobs(db: Db): Promise<void> {
  for (const app of await db.app.findMany({ select: { id: true, liveDeployment: { select: { cron: true } } } })) {
    await syncCronJobs(db, app.id, (app.liveDeployment?.cron ?? []) as unknown as CronEntry[]);
  }
}
