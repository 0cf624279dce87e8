// Procfiles, as on Heroku: `web:` is the command that serves the app and `release:` (optional) runs after the
// build and before the new release takes traffic. A Procfile names processes; the language builder chosen from
// the project's other files still builds it, and its `web:` line replaces the builder's default. A Procfile with
// no language beside it (a shell script, a binary) is built by nothing and run as written. The commands are the
// user's own shell command lines, run as ["/bin/sh", "-c", line] inside their sandbox: no platform-side shell
// ever sees them. Every other type (worker, clock, any name) runs beside web as processes of its own, without PORT
// or traffic.
import { BuildError } from "./errors.ts";
import { hasProjectFile, readProjectFile, readText } from "./files.ts";
import type { BuildContext, BuildPlan, Builder, ResolvedPlan } from "./types.ts";

export type Procfile = Map<string, string>;

/** The project's Procfile, parsed, or null when it has none. */
export async function readProcfile(ctx: Pick<BuildContext, "dir" | "log">): Promise<Procfile | null> {
  const text = await readProjectFile(ctx.dir, "Procfile", 64 * 1024);
  if (!text) return null;
  const processes = parseProcfile(readText(text));
  const others = otherTypes(processes);
  if (others.length) ctx.log(`Procfile: ${others.join(", ")} run${others.length === 1 ? "s" : ""} beside web (1 instance each unless scaled: slipway ps:scale ${others[0]}=2).`);
  return processes;
}

/** The plan's processes as the Procfile names them: its web: line over the builder's default, its release: line, the rest. */
export function applyProcfile(plan: BuildPlan, procfile: Procfile | null, builder: Builder): ResolvedPlan {
  const { web: defaultWeb, processEnv, ...rest } = plan;
  const webLine = procfile?.get("web");
  const release = procfile?.get("release");
  let web = webLine ? ({ kind: "process", argv: shell(webLine) } as const) : defaultWeb;
  if (!web) throw new BuildError(builder.missingWeb ?? 'Add a Procfile with a web: line naming the command that starts your server, e.g. "web: ./server".');
  if (web.kind === "process" && processEnv) web = { ...web, env: processEnv };
  const others = procfile ? otherTypes(procfile) : [];
  const processes = Object.fromEntries(others.map((type) => [type, shell(procfile!.get(type)!)]));
  return { ...rest, ...(release ? { release: shell(release) } : {}), web, ...(others.length ? { processes } : {}) };
}

/** The Procfile's types that run beside web (release is a phase, not a process). */
function otherTypes(procfile: Procfile): string[] {
  return [...procfile.keys()].filter((type) => type !== "web" && type !== "release");
}

/** A Procfile with no language builder's files beside it: nothing to build, its web: line runs as written. */
export const procfileBuilder: Builder = {
  name: "procfile",
  looksFor: "Procfile",
  missingWeb: 'The Procfile has no web: line. Add the command that starts your server, e.g. "web: ./server --port $PORT".',
  async detect(ctx) {
    // detectBuild has read and parsed it already (readProcfile): whether it is there is all this needs.
    return (await hasProjectFile(ctx.dir, "Procfile")) ? { builder: "procfile", steps: [] } : null;
  },
};

function shell(line: string): string[] {
  return ["/bin/sh", "-c", line];
}

/** Process type → command line. Blank lines and # comments are skipped; anything else must be `type: command`. */
export function parseProcfile(text: string): Procfile {
  const processes: Procfile = new Map();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const match = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    const where = `Procfile line ${index + 1}`;
    if (!match) throw new BuildError(`${where} is not "type: command": ${JSON.stringify(line)}.`);
    const [, type, command] = match;
    if (!command) throw new BuildError(`${where} gives ${type}: no command.`);
    if (processes.has(type)) throw new BuildError(`${where} declares ${type}: a second time.`);
    processes.set(type, command);
  });
  return processes;
}
