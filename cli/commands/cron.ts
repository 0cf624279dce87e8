// slipway cron, cron:run <id> [--detach]: the live release's app.json cron jobs (UTC), and one of them run now,
// streamed like `slipway run` and exiting with its code.
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { CronJobsQuery, RunCronJobMutation } from "../documents.ts";
import { resolveApp } from "../link.ts";
import { CliError, print, printJson, printTable, status } from "../output.ts";
import { attach } from "./runs.ts";

type Options = GlobalOptions & { app?: string; json?: boolean; detach?: boolean };

export async function list(options: Options) {
  const api = Api.connect(options);
  const { app } = await api.graphql(CronJobsQuery, { slug: resolveApp(options.app) });
  if (options.json) return printJson(app.cronJobs);
  if (!app.cronJobs.length) return print('No cron jobs: add them to app.json, like {"cron": [{"command": "python tasks.py", "schedule": "*/5 * * * *"}]}, and deploy.');
  printTable(
    ["ID", "SCHEDULE (UTC)", "COMMAND", "NEXT RUN", "LAST RUN", "EXIT"],
    app.cronJobs.map((j) => [j.id, j.schedule, j.command, j.nextRunAt ?? "- (stopped)", j.lastRun ? status(j.lastRun.status) : "-", j.lastRun?.exitCode ?? "-"]),
  );
}

export async function run(id: string, options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const started = unwrap((await api.graphql(RunCronJobMutation, { slug, id })).runCronJob);
  if (!("id" in started)) throw new CliError("Unexpected answer from the server.");
  await attach(api, slug, started.id, options.detach);
}
