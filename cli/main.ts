// The `slipway` command-line tool's entry point (bin/slipway.js runs it): parses argv, runs the command, and
// turns errors into one line on stderr with a non-zero exit.
import { env } from "./env.ts";
import { buildProgram } from "./program.ts";
import { withRunCommandSeparated } from "./run-argv.ts";
import { CliError, color } from "./output.ts";

async function main() {
  const program = buildProgram();
  program.exitOverride();
  try {
    await program.parseAsync(withRunCommandSeparated(program, process.argv));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (typeof code === "string" && code.startsWith("commander.")) {
      process.exitCode = (error as { exitCode?: number }).exitCode ?? 1;
      return;
    }
    if (error instanceof CliError) {
      process.stderr.write(`${color.red("Error:", process.stderr)} ${error.message}\n`);
      process.exitCode = error.exitCode;
      return;
    }
    process.stderr.write(`${color.red("Error:", process.stderr)} ${(error as Error).message ?? String(error)}\n`);
    if (env.debug()) process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 1;
  }
}

await main();
