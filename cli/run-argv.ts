// `slipway run <command…>`: everything from the command's first word on is the command's own, options included
// (`slipway run ls -a` lists with -a, it does not name an app). Commander would parse a known option anywhere, so
// a `--` is put before the first word that is not one of Slipway's options (commander then takes the rest as is).
import type { Command, Option } from "commander";

export function withRunCommandSeparated(program: Command, argv: string[]): string[] {
  const run = program.commands.find((c) => c.name() === "run");
  const at = argv.indexOf("run", 2);
  if (!run || at === -1 || argv.slice(2, at).some((a) => !a.startsWith("-") && !takesValue(program.options, argv, argv.indexOf(a)))) return argv;
  const options = [...program.options, ...run.options];
  for (let i = at + 1; i < argv.length; i++) {
    const word = argv[i];
    if (word === "--") return argv;
    if (word === "-h" || word === "--help") continue;
    if (!word.startsWith("-")) return [...argv.slice(0, i), "--", ...argv.slice(i)];
    const option = find(options, word);
    if (!option) return [...argv.slice(0, i), "--", ...argv.slice(i)];
    if ((option.required || option.optional) && !word.includes("=")) i++;
  }
  return argv;
}

function find(options: readonly Option[], word: string): Option | undefined {
  const name = word.split("=")[0];
  return options.find((o) => o.long === name || o.short === name);
}

/** Whether argv[i] is the value of the global option before it (`--server https://…`). */
function takesValue(options: readonly Option[], argv: string[], i: number): boolean {
  const option = i > 0 ? find(options, argv[i - 1]) : undefined;
  return !!option && (option.required || option.optional) && !argv[i - 1].includes("=");
}
