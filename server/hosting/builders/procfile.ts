// Procfile projects, as on Heroku: `web:` (required) is the command that serves the app, `release:` (optional)
// runs after the build and before the new release takes traffic. The commands are the user's own shell
// command lines, run as ["/bin/sh", "-c", line] inside their sandbox: no platform-side shell ever sees them.
// Other process types (worker, …) are ignored with a log line. A package.json beside the Procfile still gets
// its dependencies installed and its build script run, like Heroku's Node buildpack.
import { BuildError } from "./errors.ts";
import { readProjectFile, readText } from "./files.ts";
import { nodeSteps, readPackageJson } from "./node.ts";
import type { Builder } from "./types.ts";

export const procfileBuilder: Builder = {
  name: "procfile",
  looksFor: "Procfile",
  async detect(ctx) {
    const text = await readProjectFile(ctx.dir, "Procfile", 64 * 1024);
    if (!text) return null;
    const processes = parseProcfile(readText(text));
    const web = processes.get("web");
    if (!web) throw new BuildError('The Procfile has no web: line. Add the command that starts your server, e.g. "web: node server.js".');
    const ignored = [...processes.keys()].filter((type) => type !== "web" && type !== "release");
    if (ignored.length) ctx.log(`Procfile: ignoring ${ignored.join(", ")}; Slipway runs web, and release before each switch.`);
    const pkg = await readPackageJson(ctx.dir);
    const release = processes.get("release");
    return {
      builder: "procfile",
      steps: pkg ? await nodeSteps(ctx, pkg) : [],
      ...(release ? { release: shell(release) } : {}),
      web: { kind: "process", argv: shell(web) },
    };
  },
};

function shell(line: string): string[] {
  return ["/bin/sh", "-c", line];
}

/** Process type → command line. Blank lines and # comments are skipped; anything else must be `type: command`. */
export function parseProcfile(text: string): Map<string, string> {
  const processes = new Map<string, string>();
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
