// stop, restart, rollback [deployment], ps, ps:scale <type=n…>, quota.
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { PsQuery, QuotaRequestsQuery, RestartMutation, RollbackMutation, ScaleProcessesMutation, StopMutation, WhoamiQuery } from "../documents.ts";
import type { CliProcessFragment } from "../gql/graphql.ts";
import { resolveApp } from "../link.ts";
import { CliError, color, formatBytes, formatDuration, print, printJson, printTable, status } from "../output.ts";

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
  if (!worthListingInstances(app.processes)) return;
  for (const processType of app.processes) printProcessType(processType);
}

/** The live release as ps shows it: its id, what built it and where it came from, e.g. `d3f1… (python, github 1a2b3c4)`. */
function release(live: { id: string; builder?: string | null; source: string; commit?: string | null }): string {
  const origin = live.commit ? `${live.source} ${live.commit.slice(0, 7)}` : live.source;
  return `${live.id} (${[live.builder, origin].filter(Boolean).join(", ")})`;
}

/** A lone web instance says nothing the summary does not; several, or any type beside web, do. */
function worthListingInstances(processes: CliProcessFragment[]): boolean {
  const total = processes.reduce((sum, p) => sum + p.instances.length, 0);
  return total > 1 || processes.some((p) => p.type !== "web");
}

/** One type as Heroku's ps shows it: `=== worker (2): node worker.js`, then its instances. */
function printProcessType(processType: CliProcessFragment): void {
  print("");
  print(color.bold(`=== ${processType.type} (${processType.quantity}): ${processType.command}`));
  if (!processType.instances.length) return;
  printTable(
    ["INSTANCE", "STATE", "UPTIME", "RESTARTS"],
    processType.instances.map((i) => [i.name, i.state.toLowerCase(), i.startedAt ? formatDuration(Date.now() - Date.parse(i.startedAt)) : "-", i.restarts]),
  );
}

/** `slipway ps:scale web=2 worker=1` (Heroku's form), or `slipway ps:scale 3` for web=3. */
export async function scale(args: string[], options: Options) {
  const formation = parseFormation(args);
  const slug = resolveApp(options.app);
  const api = Api.connect(options);
  unwrap((await api.graphql(ScaleProcessesMutation, { slug, formation })).scaleProcesses);
  const shown = Object.entries(formation).map(([type, quantity]) => `${type} ${quantity}`);
  print(`Scaling ${slug}: ${shown.join(", ")}; \`slipway ps\` shows them start.`);
}

/** The arguments of ps:scale as a formation, checked here so that a typo never reaches the server. */
function parseFormation(args: string[]): Record<string, number> {
  if (!args.length) throw new CliError("Give the instances of each type to run, e.g. `slipway ps:scale web=2 worker=1`.");
  if (args.length === 1 && !args[0].includes("=")) return { web: wholeNumber(args[0], `"${args[0]}" is not a whole number of instances, nor TYPE=N (e.g. web=2 worker=1).`) };
  const formation: Record<string, number> = {};
  for (const arg of args) {
    const [type, quantity] = typeAndQuantity(arg);
    if (type in formation) throw new CliError(`${type} is given twice: name each type once.`);
    formation[type] = quantity;
  }
  return formation;
}

function typeAndQuantity(arg: string): [string, number] {
  const match = /^([^=\s]+)=(.*)$/.exec(arg);
  if (!match) throw new CliError(`"${arg}" is not TYPE=N: give a process type and how many instances of it to run, e.g. worker=2.`);
  const [, type, quantity] = match;
  return [type, wholeNumber(quantity, `${arg}: "${quantity}" is not a whole number of instances (0 or more; 0 stops ${type}).`)];
}

function wholeNumber(text: string, problem: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) throw new CliError(problem);
  return value;
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
