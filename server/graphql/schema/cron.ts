// Cron jobs: the live release's app.json "cron", each run by the scheduler at its minutes (UTC) or now on request.
// REST: GET /api/apps/:slug/cron, POST /api/apps/:slug/cron/:id/run; their runs are Runs of trigger cron.
import { ConflictError, NotFoundError, QuotaExceededError } from "../../errors.ts";
import type { CronJobView } from "../../services/cron.ts";
import { builder } from "../builder.ts";
import { App } from "./apps.ts";
import { Run } from "./runs.ts";

const READ = { "read:apps": true } as const;
const WRITE = { "write:apps": true } as const;

const CronJob = builder.objectRef<CronJobView>("CronJob").implement({
  description: "A job of the live release's app.json cron: its command, run on its schedule (UTC) in the live release",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Stable for the app, the command and the schedule" }),
    command: t.exposeString("command", { description: "The shell line, run as /bin/sh -c <command> inside the app's sandbox" }),
    schedule: t.exposeString("schedule", { description: "Five-field crontab, in UTC" }),
    timeoutSeconds: t.exposeInt("timeoutSeconds"),
    nextRunAt: t.expose("nextRunAt", { type: "DateTime", nullable: true, description: "Its next minute; null while the app is stopped" }),
    lastRun: t.field({ type: Run, nullable: true, description: "Its newest run, scheduled or run now", resolve: (job, _args, ctx) => ctx.services.cron.lastRun(job.id) }),
  }),
});

builder.objectFields(App, (t) => ({
  cronJobs: t.field({
    type: [CronJob],
    description: "The live release's cron jobs, in app.json's order (none without a live release)",
    resolve: (app, _args, ctx) => ctx.services.cron.ofApp(app),
  }),
}));

builder.queryFields((t) => ({
  appCronJobs: t.withAuth(READ).field({
    type: [CronJob],
    description: "An app's cron jobs (not_found for an app that is not the viewer's)",
    args: { slug: t.arg.string() },
    resolve: (_root, { slug }, ctx) => ctx.services.cron.listMine(ctx.viewer.user.id, slug),
  }),
}));

builder.mutationFields((t) => ({
  runCronJob: t.withAuth(WRITE).field({
    type: Run,
    description: "Run a cron job's command now in the live release (a run of trigger cron); answers once it runs",
    args: { slug: t.arg.string(), id: t.arg.id() },
    errors: { types: [NotFoundError, ConflictError, QuotaExceededError] },
    resolve: (_root, { slug, id }, ctx) => ctx.services.cron.runNow(ctx.viewer.user.id, slug, String(id)),
  }),
}));
