// app.json at the top of the project (Heroku's manifest): Slipway reads its "healthcheck" only. A bad one fails
// the build with the field named, rather than deploying an app whose checks would not do what it asked.
import { healthCheckProblems, toHealthCheckSpec, type HealthCheckSpec } from "../health-settings.ts";
import { BuildError } from "./errors.ts";
import { readProjectFile, readText } from "./files.ts";

/** The app.json "healthcheck", defaults filled in; undefined when there is no app.json or it names none. */
export async function appJsonHealthCheck(dir: string): Promise<HealthCheckSpec | undefined> {
  const text = await readProjectFile(dir, "app.json", 1024 ** 2);
  if (!text) return undefined;
  let manifest: unknown;
  try {
    manifest = JSON.parse(readText(text));
  } catch (error) {
    throw new BuildError(`app.json is not valid JSON (${(error as Error).message}).`);
  }
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) throw new BuildError("app.json must hold a JSON object.");
  const value = (manifest as Record<string, unknown>).healthcheck;
  if (value === undefined || value === null) return undefined;
  const problems = healthCheckProblems(value);
  if (problems.length) throw new BuildError(`app.json ${problems.map((p) => `"${p.field}": ${p.message}`).join(" ")}`);
  return toHealthCheckSpec(value as Record<string, unknown>);
}
