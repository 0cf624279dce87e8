// stop, restart, rollback [deployment], ps, ps:scale <n>, quota.
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { PsQuery, QuotaRequestsQuery, RestartMutation, RollbackMutation, ScaleMutation, StopMutation, WhoamiQuery } from "../documents.ts";
import { resolveApp } from "../link.ts";
import { CliError, formatBytes, formatDuration, print, printJson, printTable, status } from "../output.ts";

type Options = GlobalOptions & { json?: boolean; app?: string };

export async function stop(options: Options) {
  const api = Api.connect(options);
  const { stopApp } = await api.graphql(StopMutation, { slug: resolveApp(options.app) });
  print(`Stopped ${stopApp.slug} (${status(stopApp.status)}).`);
}

export async function restart(options: Options) {
  const api = Api.connect(options);
  const app = unwrap((await api.graphql(RestartMutation, { slug: resolveApp(options.app) })).restartApp);
  if ("slug" in app) print(`Restarting ${app.slug} (${status(app.status)}).`);
}

export async function rollback(deployment: string | undefined, options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const result = unwrap((await api.graphql(RollbackMutation, { slug, input: deployment ? { deployment } : null })).rollback);
  if ("id" in result) print(`Rolling ${slug} back to the release of ${result.rollbackOf ?? deployment ?? "the previous deployment"} (deployment ${result.id}, ${status(result.status)}).`);
}

export async function ps(options: Options) {
  const api = Api.connect(options);
  const { app } = await api.graphql(PsQuery, { slug: resolveApp(options.app) });
  const live = app.liveDeployment;
  const since = live ? (live.finishedAt ?? live.startedAt ?? live.createdAt) : null;
  const uptime = app.status === "RUNNING" && since ? formatDuration(Date.now() - Date.parse(since)) : null;
  if (options.json) return printJson({ ...app, uptimeSeconds: uptime && since ? Math.floor((Date.now() - Date.parse(since)) / 1000) : null });
  printTable(
    ["APP", "STATUS", "RELEASE", "INSTANCES", "RESTARTS", "UPTIME"],
    [[app.slug, status(app.status), live ? release(live) : "none", app.instances, app.restarts, uptime ?? "-"]],
  );
  if (app.processes.length < 2) return;
  print("");
  printTable(
    ["INSTANCE", "STATE", "UPTIME", "RESTARTS"],
    app.processes.map((p) => [p.name, p.state.toLowerCase(), p.startedAt ? formatDuration(Date.now() - Date.parse(p.startedAt)) : "-", p.restarts]),
  );
}

/** The live release as ps shows it: its id, what built it and where it came from, e.g. `d3f1… (python, github 1a2b3c4)`. */
function release(live: { id: string; builder?: string | null; source: string; commit?: string | null }): string {
  const origin = live.commit ? `${live.source} ${live.commit.slice(0, 7)}` : live.source;
  return `${live.id} (${[live.builder, origin].filter(Boolean).join(", ")})`;
}

/** `slipway ps:scale 3`: how many instances of the web process run. */
export async function scale(count: string, options: Options) {
  const instances = Number(count);
  if (!/^\d+$/.test(count.trim()) || !Number.isSafeInteger(instances)) throw new CliError(`"${count}" is not a whole number of instances.`);
  const api = Api.connect(options);
  const app = unwrap((await api.graphql(ScaleMutation, { slug: resolveApp(options.app), instances })).scaleApp);
  if ("slug" in app) print(`Scaling ${app.slug} to ${app.instances} instance${app.instances === 1 ? "" : "s"}; \`slipway ps\` shows them start.`);
}

export async function quota(options: Options) {
  const api = Api.connect(options);
  const { viewer } = await api.graphql(WhoamiQuery, {});
  const q = viewer.quota;
  if (options.json) return printJson(q);
  printTable(
    ["RESOURCE", "USED", "LIMIT"],
    [
      ["apps", q.usage.apps, q.maxApps],
      ["databases", q.usage.databases, q.maxDatabases],
      ["instances per app", q.usage.instances, q.maxInstances],
      ["cdn storage", formatBytes(q.usage.cdnBytes), formatBytes(q.cdnBytes)],
      ["upload size", "", formatBytes(q.maxUploadBytes)],
      ["requests/minute", "", q.requestsPerMinute],
    ],
  );
  const { quotaRequests } = await api.graphql(QuotaRequestsQuery, {});
  const pending = quotaRequests.find((r) => r.status === "PENDING");
  if (pending) print(`\nRequest ${pending.id} for higher limits is pending (${pending.createdAt}); \`slipway quota:requests\` shows it.`);
  else print(`\nNeed more? \`slipway quota:request --apps 10 --reason "…"\` asks an administrator.`);
}
