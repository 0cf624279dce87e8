// apps, apps:create, apps:info, apps:sleep, apps:delete, link.
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { AppInfoQuery, AppsQuery, CreateAppMutation, DeleteAppMutation, SetSleepMutation } from "../documents.ts";
import { findLink, resolveApp, writeLink } from "../link.ts";
import { describeHealthCheck } from "./healthcheck.ts";
import type { CliAppsQuery } from "../gql/graphql.ts";
import { CliError, color, print, printJson, printTable, status } from "../output.ts";

/** The page size of the apps query (`first: 100` in documents.ts). */
const PAGE = 100;

type Options = GlobalOptions & { json?: boolean; app?: string };

export async function list(options: Options) {
  const api = Api.connect(options);
  const all: CliAppsQuery["apps"] = [];
  let after: string | null = null;
  for (;;) {
    const { apps }: CliAppsQuery = await api.graphql(AppsQuery, { after });
    all.push(...apps);
    if (apps.length < PAGE) break;
    after = apps[apps.length - 1].slug;
  }
  if (options.json) return printJson(all);
  if (!all.length) return print("You have no apps yet. Create one with `slipway apps:create <slug>`.");
  printTable(
    ["SLUG", "STATUS", "URL", "SOURCE"],
    all.map((a) => [a.slug, status(a.status), a.url, a.repo ? `${a.repo}#${a.branch}` : "zip"]),
  );
}

export async function create(slug: string, options: Options & { name?: string; repo?: string; branch?: string; link: boolean }) {
  const api = Api.connect(options);
  const { createApp } = await api.graphql(CreateAppMutation, {
    input: { slug, ...(options.name ? { name: options.name } : {}), ...(options.repo ? { repo: options.repo } : {}), ...(options.branch ? { branch: options.branch } : {}) },
  });
  const app = unwrap(createApp);
  if (!("slug" in app)) throw new CliError("Unexpected answer from the server.");
  const file = options.link ? writeLink(app.slug) : null;
  if (options.json) return printJson(app);
  print(`Created ${color.bold(app.slug)}: ${app.url}`);
  if (file) print(color.dim(`Linked this folder to it (${file}). Deploy with \`slipway deploy\`.`));
}

export async function info(options: Options) {
  const api = Api.connect(options);
  const { app } = await api.graphql(AppInfoQuery, { slug: resolveApp(options.app) });
  if (options.json) return printJson(app);
  print(`${color.bold(app.name)} (${app.slug})  ${status(app.status)}`);
  if (app.statusNote) print(color.dim(app.statusNote));
  print(`URL:       ${app.url}`);
  if (app.description) print(`About:     ${app.description}`);
  print(`Source:    ${app.repo ? `${app.repo}#${app.branch}${app.autoDeploy ? " (auto-deploy)" : ""}` : "zip uploads"}`);
  print(`Instances: ${app.instances}   Restarts: ${app.restarts}`);
  print(`Sleep:     ${describeSleep(app)}`);
  const live = app.liveDeployment;
  if (live) print(`Live:      ${live.id} (${live.builder ? `${live.builder}, ` : ""}${live.source}, since ${live.finishedAt ?? live.createdAt})`);
  if (app.resources.length) print(`Databases: ${app.resources.map((r) => `${r.name} (${r.type}, $${r.envKey})`).join(", ")}`);
  print(`Health:    ${describeHealthCheck(app.effectiveHealthcheck)}`);
  if (app.deployments.length) {
    print();
    printTable(
      ["DEPLOYMENT", "STATUS", "SOURCE", "BUILDER", "CREATED", "DURATION", "ERROR"],
      app.deployments.map((d) => [d.id, status(d.status), d.source, d.builder ?? "-", d.createdAt, d.durationMs != null ? `${(d.durationMs / 1000).toFixed(1)}s` : "", d.error ?? ""]),
    );
    const failed = app.deployments[0].failureOutput;
    if (failed?.length) {
      print();
      print(color.bold(`The last output of ${app.deployments[0].id} before it stopped:`));
      for (const line of failed) print(`  ${line}`);
    }
  }
}

/** `minutes`: 1-10080, or "off". The server checks the range and answers the error a person can act on. */
export async function sleep(minutes: string, options: Options & { workers?: boolean }) {
  const off = minutes === "off";
  if (!off && !/^\d+$/.test(minutes)) throw new CliError(`Give the minutes as a whole number (1-10080), or \`off\`; not "${minutes}".`);
  const api = Api.connect(options);
  const input = { sleepAfterMinutes: off ? null : Number(minutes), sleepWorkers: !!options.workers };
  const app = unwrap((await api.graphql(SetSleepMutation, { slug: resolveApp(options.app), input })).updateApp);
  if (!("slug" in app)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(app);
  print(`${color.bold(app.slug)}: ${describeSleep(app)}.`);
}

function describeSleep(app: { sleepAfterMinutes?: number | null; sleepWorkers?: boolean }): string {
  if (app.sleepAfterMinutes == null) return "never sleeps";
  const after = `sleeps after ${app.sleepAfterMinutes} minute${app.sleepAfterMinutes === 1 ? "" : "s"} without a request`;
  return `${after} (${app.sleepWorkers ? "with its other process types" : "web only; other process types keep running"}), the next request waking it`;
}

export async function remove(slug: string, options: Options & { yes?: boolean }) {
  const api = Api.connect(options);
  if (!options.yes) {
    if (!process.stdin.isTTY) throw new CliError(`Refusing to delete ${slug} without confirmation: pass --yes.`);
    const { text, isCancel } = await import("@clack/prompts");
    const typed = await text({ message: `This deletes ${slug} with its releases, env vars, logs and databases. Type the slug to confirm:` });
    if (isCancel(typed) || typed !== slug) throw new CliError("Not deleted: the slug did not match.");
  }
  const { deleteApp } = await api.graphql(DeleteAppMutation, { slug });
  if (!deleteApp) throw new CliError(`No app ${slug} among yours.`);
  print(`Deleted ${slug}.`);
  if (findLink()?.app === slug) print(color.dim("This folder's slipway.json still names it; link it to another app with `slipway link <slug>`."));
}

export async function link(slug: string, options: Options) {
  const api = Api.connect(options);
  const { app } = await api.graphql(AppInfoQuery, { slug });
  const file = writeLink(app.slug);
  print(`Linked ${process.cwd()} to ${app.slug} (${file}).`);
}
