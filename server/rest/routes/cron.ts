// Cron jobs of an app (its live release's app.json "cron"): list them, run one now. Their runs are in /runs.
import type { RestRoute } from "../types.ts";

export const cronRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/apps/:slug/cron",
    tag: "cron",
    summary: "The live release's cron jobs in app.json's order: command, schedule (UTC), next run (null while stopped) and last run",
    document: `query AppCronJobs($slug: String!) { appCronJobs(slug: $slug) { ...CronJobFields } }`,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/cron/:id/run",
    tag: "cron",
    summary: "Run a cron job's command now (a run of trigger cron), whatever its schedule; answers once it runs. 409 without a live release; 403 quota_exceeded past maxInstances",
    document: `mutation RunCronJob($slug: String!, $id: ID!) { runCronJob(slug: $slug, id: $id) { ... on Run { ...RunFields } ...ErrorFields } }`,
    status: 202,
  },
];
