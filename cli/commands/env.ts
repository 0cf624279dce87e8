// env, env:set KEY=VALUE… (KEY=@file reads the value from a file), env:unset KEY….
import fs from "node:fs";
import { Api, type GlobalOptions } from "../api.ts";
import { EnvQuery, SetEnvMutation, UnsetEnvMutation } from "../documents.ts";
import { resolveApp } from "../link.ts";
import { CliError, print, printJson } from "../output.ts";

type Options = GlobalOptions & { json?: boolean; app?: string };

export async function list(options: Options) {
  const api = Api.connect(options);
  const { appEnv } = await api.graphql(EnvQuery, { slug: resolveApp(options.app) });
  if (options.json) return printJson(Object.fromEntries(appEnv.map((v) => [v.key, v.value])));
  if (!appEnv.length) return print("No environment variables. Set some with `slipway env:set KEY=VALUE`.");
  for (const { key, value } of appEnv) print(`${key}=${value}`);
}

export function parsePairs(pairs: string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new CliError(`"${pair}" is not KEY=VALUE.`);
    const key = pair.slice(0, eq);
    let value = pair.slice(eq + 1);
    if (value.startsWith("@")) {
      const file = value.slice(1);
      try {
        value = fs.readFileSync(file, "utf8");
      } catch (error) {
        throw new CliError(`Cannot read ${file} for ${key}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
    }
    vars[key] = value;
  }
  return vars;
}

export async function set(pairs: string[], options: Options) {
  const vars = parsePairs(pairs);
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  await api.graphql(SetEnvMutation, { slug, vars });
  print(`Set ${Object.keys(vars).join(", ")} on ${slug}.`);
}

export async function unset(keys: string[], options: Options) {
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  const missing: string[] = [];
  for (const key of keys) {
    const { unsetEnv } = await api.graphql(UnsetEnvMutation, { slug, key });
    if (!unsetEnv) missing.push(key);
  }
  const removed = keys.filter((k) => !missing.includes(k));
  if (removed.length) print(`Removed ${removed.join(", ")} from ${slug}.`);
  if (missing.length) print(`Not set on ${slug}: ${missing.join(", ")}.`);
}
