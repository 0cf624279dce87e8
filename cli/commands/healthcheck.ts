// healthcheck, healthcheck:set, healthcheck:unset: the check a release must pass to go live, and that keeps
// each instance in rotation.
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { HealthCheckQuery, SetHealthCheckMutation } from "../documents.ts";
import type { CliHealthCheckQuery } from "../gql/graphql.ts";
import { resolveApp } from "../link.ts";
import { CliError, color, print, printJson } from "../output.ts";

type Options = GlobalOptions & { json?: boolean; app?: string };
type Effective = CliHealthCheckQuery["app"]["effectiveHealthcheck"];

const SOURCES: Record<Effective["source"], string> = { APP: "the app's setting", APP_JSON: "the live release's app.json", DEFAULT: "Slipway's default" };

export function describeHealthCheck(check: Effective): string {
  const what = check.path ? `GET ${check.path} (2xx or 3xx passes)` : "TCP connect to PORT";
  return `${what} every ${check.intervalSeconds}s, timeout ${check.timeoutSeconds}s, from ${SOURCES[check.source]}`;
}

export async function show(options: Options) {
  const api = Api.connect(options);
  const { app } = await api.graphql(HealthCheckQuery, { slug: resolveApp(options.app) });
  if (options.json) return printJson(app);
  print(`${color.bold(app.slug)}: ${describeHealthCheck(app.effectiveHealthcheck)}`);
}

export async function set(options: Options & { path?: string; tcp?: boolean; interval?: string; timeout?: string }) {
  if (options.path && options.tcp) throw new CliError("Give either --path or --tcp, not both.");
  const healthcheck = {
    path: options.tcp ? null : (options.path ?? null),
    ...(options.interval ? { intervalSeconds: seconds("--interval", options.interval) } : {}),
    ...(options.timeout ? { timeoutSeconds: seconds("--timeout", options.timeout) } : {}),
  };
  await save(options, healthcheck);
}

export async function unset(options: Options) {
  await save(options, null);
}

async function save(options: Options, healthcheck: { path: string | null; intervalSeconds?: number; timeoutSeconds?: number } | null) {
  const api = Api.connect(options);
  const { updateApp } = await api.graphql(SetHealthCheckMutation, { slug: resolveApp(options.app), healthcheck });
  const app = unwrap(updateApp);
  if (!("effectiveHealthcheck" in app)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(app);
  print(`${color.bold(app.slug)}: ${describeHealthCheck(app.effectiveHealthcheck)}. Running instances use it from their next check.`);
}

function seconds(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${flag} takes a whole number of seconds, like 5.`);
  return n;
}
