// app.json at the top of the project (Heroku's manifest, as Dokku reads it): Slipway reads its "healthcheck" and
// its "cron" jobs. A bad one fails the build with the field named, rather than deploying an app whose checks or
// jobs would not do what it asked.
import { healthCheckProblems, toHealthCheckSpec, type HealthCheckSpec } from "../health-settings.ts";
import { cronProblems, toCronEntries, type CronEntry } from "../cron/entries.ts";
import { BuildError } from "./errors.ts";
import { readProjectFile, readText } from "./files.ts";

export interface AppJson {
  healthcheck?: HealthCheckSpec;
  /** Empty when app.json names no jobs. */
  cron: CronEntry[];
}

/** What app.json asks for, defaults filled in; nothing when there is no app.json. */
export async function readAppJson(dir: string): Promise<AppJson> {
  const text = await readProjectFile(dir, "app.json", 1024 ** 2);
  if (!text) return { cron: [] };
  let manifest: unknown;
  try {
    manifest = JSON.parse(readText(text));
  } catch (error) {
    throw new BuildError(`app.json is not valid JSON (${(error as Error).message}).`);
  }
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) throw new BuildError("app.json must hold a JSON object.");
  const { healthcheck, cron } = manifest as Record<string, unknown>;
  const problems = [...(healthcheck == null ? [] : healthCheckProblems(healthcheck)), ...(cron == null ? [] : cronProblems(cron))];
  if (problems.length) throw new BuildError(`app.json ${problems.map((p) => `"${p.field}": ${p.message}`).join(" ")}`);
  return {
    ...(healthcheck == null ? {} : { healthcheck: toHealthCheckSpec(healthcheck as Record<string, unknown>) }),
    cron: cron == null ? [] : toCronEntries(cron as unknown[]),
  };
}
