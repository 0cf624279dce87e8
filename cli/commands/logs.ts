// slipway logs [--build | --run <id>] [-f] [-n N] [--json]: the newest N lines, then with -f every new line as it is stored,
// surviving dropped connections without losing or repeating a line (cli/stream.ts).
import { Api, type GlobalOptions } from "../api.ts";
import { LogsQuery } from "../documents.ts";
import { resolveApp } from "../link.ts";
import { CliError, color, print } from "../output.ts";
import type { LogLine } from "../stream.ts";

type Options = GlobalOptions & { app?: string; build?: boolean; run?: string; follow?: boolean; lines: string; json?: boolean };

export async function logs(options: Options) {
  const limit = Number(options.lines);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliError("-n takes a number of lines from 1 to 1000.");
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  if (options.build && options.run) throw new CliError("Give either --build or --run, not both.");
  const kind = options.build ? ("build" as const) : options.run ? ("run" as const) : ("runtime" as const);
  const run = options.run ?? null;
  const show = (lines: LogLine[]) => {
    for (const l of lines) {
      if (options.json) print(JSON.stringify(l));
      else print(`${color.dim(l.timestamp.slice(0, 23))} ${l.stream === "system" ? color.cyan(l.line) : l.stream === "stderr" ? color.yellow(l.line) : l.line}`);
    }
  };
  const { appLogs } = await api.graphql(LogsQuery, { slug, kind, run, limit });
  show(appLogs);
  if (!options.follow) return;

  const { followLogs } = await import("../stream.ts");
  const follower = followLogs(api, { slug, kind, run }, appLogs.at(-1)?.timestamp ?? null, show, (error) =>
    process.stderr.write(color.dim(`(log stream interrupted: ${error.message}; reconnecting)\n`, process.stderr)),
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => follower.stop());
  await follower.run();
}
