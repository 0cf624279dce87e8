// drains, drains:add <url>, drains:remove <id>: where an app's log lines are forwarded, and what each drain sent,
// dropped and last failed with.
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { AddLogDrainMutation, DrainsQuery, RemoveLogDrainMutation } from "../documents.ts";
import { resolveApp } from "../link.ts";
import { CliError, color, print, printJson, printTable } from "../output.ts";

type Options = GlobalOptions & { json?: boolean; app?: string };

export async function list(options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const { appDrains } = await api.graphql(DrainsQuery, { slug });
  if (options.json) return printJson(appDrains);
  if (!appDrains.length) return print(`${slug} has no log drains. Add one with \`slipway drains:add <url>\`.`);
  printTable(
    ["ID", "URL", "SENT", "DROPPED", "LAST ERROR"],
    appDrains.map((d) => [d.id, d.url, String(d.sent), d.dropped ? color.yellow(String(d.dropped)) : "0", d.lastError ? `${d.lastError} (${d.lastErrorAt})` : ""]),
  );
}

export async function add(url: string, options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const drain = unwrap((await api.graphql(AddLogDrainMutation, { slug, url })).addLogDrain);
  if (!("url" in drain)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(drain);
  print(`Added ${color.bold(drain.id)}: ${slug}'s build, runtime and run lines now go to ${drain.url}.`);
}

export async function remove(id: string, options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  await api.graphql(RemoveLogDrainMutation, { slug, id });
  print(`Removed ${id} from ${slug}: its lines no longer go there.`);
}
