// The one list of builders, in detection order: the first that recognises the project builds it. A Procfile is not
// a builder of its own unless nothing else recognises the project: it names the processes of whatever builds it.
import fs from "node:fs/promises";
import { BuildError } from "./errors.ts";
import { dockerfileBuilder } from "./dockerfile.ts";
import { goBuilder } from "./go.ts";
import { nodeBuilder } from "./node.ts";
import { phpBuilder } from "./php.ts";
import { applyProcfile, procfileBuilder, readProcfile } from "./procfile.ts";
import { pythonBuilder } from "./python.ts";
import { rubyBuilder } from "./ruby.ts";
import { staticBuilder } from "./static.ts";
import { missingToolchainMessage, missingToolchains } from "./toolchains.ts";
import type { BuildContext, Builder, ResolvedPlan } from "./types.ts";

export { BuildError } from "./errors.ts";

/**
 * A Dockerfile first (container runtimes), language builders next; a Procfile alone next; a static site last (a
 * Procfile's web: line outranks index.html).
 */
export const builders: readonly Builder[] = [dockerfileBuilder, nodeBuilder, pythonBuilder, goBuilder, rubyBuilder, phpBuilder, procfileBuilder, staticBuilder];

/** The plan of the first builder that recognises the project; a BuildError (also logged) when none does. */
export async function detectBuild(ctx: BuildContext): Promise<ResolvedPlan> {
  const procfile = await readProcfile(ctx);
  for (const builder of builders) {
    try {
      const plan = await builder.detect(ctx);
      if (!plan) continue;
      ctx.log(`Found ${builder.looksFor}: building with the ${builder.name} builder.`);
      const missing = await missingToolchains(builder);
      if (missing.length) throw new BuildError(missingToolchainMessage(builder, missing));
      return applyProcfile(plan, procfile, builder);
    } catch (error) {
      // A builder refuses only a project it recognised: the deployment says which builder that was.
      if (error instanceof BuildError) error.builder ??= builder.name;
      throw error;
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
  return `it holds ${names.join(", ")}${more}. Add the files of one of these languages, a Procfile with a web: line, or an index.html.`;
}
