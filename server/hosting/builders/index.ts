// The one list of builders, in detection order: the first that recognises the project builds it.
import fs from "node:fs/promises";
import { BuildError } from "./errors.ts";
import { nodeBuilder } from "./node.ts";
import { procfileBuilder } from "./procfile.ts";
import { staticBuilder } from "./static.ts";
import type { BuildContext, BuildPlan, Builder } from "./types.ts";

export { BuildError } from "./errors.ts";

export const builders: readonly Builder[] = [procfileBuilder, nodeBuilder, staticBuilder];

/** The plan of the first builder that recognises the project; a BuildError (also logged) when none does. */
export async function detectBuild(ctx: BuildContext): Promise<BuildPlan> {
  for (const builder of builders) {
    const plan = await builder.detect(ctx);
    if (plan) {
      ctx.log(`Found ${builder.looksFor}: building with the ${builder.name} builder.`);
      return plan;
    }
  }
  const message = `No ${listOf(builders.map((b) => b.looksFor))} found at the top of the project: ${await describeTop(ctx.dir)}`;
  ctx.log(message);
  throw new BuildError(message);
}

function listOf(names: string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

/** What the top of the project holds, so a user who zipped one folder too deep sees why. */
async function describeTop(dir: string): Promise<string> {
  const entries = (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  if (!entries.length) return "the project is empty.";
  const names = entries.slice(0, 10).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
  const more = entries.length > names.length ? `, and ${entries.length - names.length} more` : "";
  return `it holds ${names.join(", ")}${more}. Add a Procfile with a web: line, a package.json, or an index.html.`;
}
