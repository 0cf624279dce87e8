// slipway run <command…> [--timeout s] [--detach], runs, runs:cancel <id>: a command run once in the app's live
// release, sandboxed like its processes. `run` streams its output (stdout to stdout, stderr to stderr, Slipway's
// own lines dimmed on stderr) and exits with the command's exit code; Ctrl-C cancels the run. On a terminal (and
// without --no-tty or --detach) the run gets a terminal of its own instead, attached to this one (terminal.ts).
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { CancelRunMutation, RunStatusQuery, RunsQuery, StartRunMutation } from "../documents.ts";
import { resolveApp } from "../link.ts";
import { CliError, color, formatDuration, print, printJson, printTable, status } from "../output.ts";
import type { LogLine, RunState } from "../stream.ts";

type Options = GlobalOptions & { app?: string; json?: boolean; timeout?: string; detach?: boolean; tty?: boolean };

const FINISHED = new Set(["SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELED"]);

function timeoutOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86_400) throw new CliError("--timeout takes a whole number of seconds from 1 to 86400.");
  return seconds;
}

function write(lines: LogLine[]): void {
  for (const l of lines) {
    if (l.stream === "stdout") process.stdout.write(`${l.line}\n`);
    else if (l.stream === "stderr") process.stderr.write(`${l.line}\n`);
    else process.stderr.write(`${color.dim(l.line, process.stderr)}\n`);
  }
}

/** The run once it finished: over the subscription, or by polling when the stream drops. */
async function settle(api: Api, slug: string, id: string): Promise<RunState> {
  const { waitForRun } = await import("../stream.ts");
  try {
    return await waitForRun(api, slug, id);
  } catch (error) {
    if (error instanceof CliError) throw error;
    for (;;) {
      const { appRun } = await api.graphql(RunStatusQuery, { slug, id });
      if (FINISHED.has(appRun.status)) return appRun;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

export async function run(words: string[], options: Options) {
  const command = words.join(" ");
  const timeoutSeconds = timeoutOf(options.timeout);
  const api = Api.connect(options);
  const slug = resolveApp(options.app);
  if (!options.detach && options.tty !== false && process.stdin.isTTY && process.stdout.isTTY) {
    const attached = await runOnTerminal(api, slug, command, timeoutSeconds);
    if (attached) return;
  }
  const started = unwrap((await api.graphql(StartRunMutation, { slug, input: { command, timeoutSeconds } })).startRun);
  if (!("id" in started)) throw new CliError("Unexpected answer from the server.");
  await attach(api, slug, started.id, options.detach);
}

/** The run on a terminal attached to this one; false when the server's runtime cannot give it one. */
async function runOnTerminal(api: Api, slug: string, command: string, timeoutSeconds: number | undefined): Promise<boolean> {
  const input = { command, timeoutSeconds, interactive: true, cols: process.stdout.columns, rows: process.stdout.rows };
  const answer = (await api.graphql(StartRunMutation, { slug, input })).startRun;
  if ("code" in answer && answer.code === "conflict" && /cannot attach a terminal/.test(answer.message)) {
    process.stderr.write(color.dim(`${answer.message.split(":")[0]}: running it without one.\n`, process.stderr));
    return false;
  }
  const started = unwrap(answer);
  if (!("attachUrl" in started) || !started.attachUrl) throw new CliError("Unexpected answer from the server.");
  const { attachTerminal, exitStatusOf } = await import("../terminal.ts");
  const outcome = await attachTerminal(api, started.attachUrl);
  process.exitCode = exitStatusOf(outcome);
  if (outcome.exitCode === null) process.stderr.write(`\r\n${color.red("✖", process.stderr)} Run ${started.id} ${status(outcome.status)}${outcome.error ? `: ${outcome.error}` : ""}\r\n`);
  return true;
}

/**
 * Streams a started run's output until it ends and exits with its exit code (1 when it has none); Ctrl-C cancels
 * it. `detach`: prints its id and returns at once.
 */
export async function attach(api: Api, slug: string, id: string, detach = false): Promise<void> {
  if (detach) {
    print(id);
    process.stderr.write(color.dim(`Follow it with: slipway logs --run ${id}; cancel it with: slipway runs:cancel ${id}\n`, process.stderr));
    return;
  }
  const { followLogs } = await import("../stream.ts");
  const logs = followLogs(api, { slug, kind: "run", run: id }, null, write);
  const streaming = logs.run();
  const cancel = () => void api.graphql(CancelRunMutation, { slug, id }).catch(() => {});
  process.once("SIGINT", cancel);
  const outcome = await settle(api, slug, id);
  process.off("SIGINT", cancel);
  // Its whole output was stored before it read as finished: what the stream has not shown yet comes over HTTP.
  logs.stop();
  await streaming;
  await logs.catchUp();
  if (outcome.exitCode !== null && outcome.exitCode !== undefined) {
    process.exitCode = outcome.exitCode;
    return;
  }
  process.stderr.write(`${color.red("✖", process.stderr)} Run ${id} ${status(outcome.status)}${outcome.error ? `: ${outcome.error}` : ""}\n`);
  process.exitCode = 1;
}

export async function list(options: Options) {
  const api = Api.connect(options);
  const { app } = await api.graphql(RunsQuery, { slug: resolveApp(options.app) });
  if (options.json) return printJson(app.runs);
  if (!app.runs.length) return print("No runs yet: start one with `slipway run <command>`.");
  printTable(
    ["ID", "STATUS", "EXIT", "STARTED", "DURATION", "TRIGGER", "COMMAND"],
    app.runs.map((r) => [r.id, status(r.status), r.exitCode ?? "-", r.startedAt ?? r.createdAt, r.durationMs == null ? "-" : formatDuration(r.durationMs), r.trigger, r.command]),
  );
}

export async function cancel(id: string, options: Options) {
  const api = Api.connect(options);
  const result = unwrap((await api.graphql(CancelRunMutation, { slug: resolveApp(options.app), id })).cancelRun);
  if ("id" in result) print(`Run ${result.id} ${status(result.status)}.`);
}
