// A command as the build log shows it: what the user wrote (a Procfile line, a start script), not the shell
// Slipway wraps it in to run it; an argv of Slipway's own as a shell would need it typed (quoted where it must be).
import { RUN_SCRIPT } from "../builders/node.ts";

export function shownCommand(argv: readonly string[]): string {
  const [program, flag, script, ...args] = argv;
  if (program === "/bin/sh" && flag === "-c" && script !== undefined) {
    if (args.length === 0) return script;
    if (script === RUN_SCRIPT && args.length === 1) return args[0];
  }
  return argv.map(quoted).join(" ");
}

function quoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
