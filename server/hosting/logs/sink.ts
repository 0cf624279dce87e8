// Connects a process's output to the log store: one line splitter per stream, each line redacted of the
// app's secrets before it is stored. A running instance's log also drops the lines that log its health checks,
// and keeps its last lines in memory (what a failed start reports).
import type { OutputSink, OutputStream } from "../../platform/runtime/types.ts";
import { LineSplitter } from "./lines.ts";
import type { Redact } from "./redact.ts";
import type { LogKind, LogStore } from "./store.ts";

export interface LogTarget {
  appId: string;
  kind: LogKind;
  deploymentId: string | null;
  /** The instance's index (web.1 is 1), for an app's runtime output. */
  instance?: number;
  /** The one-off run, for its output (kind run). */
  runId?: string;
  /** The process that writes (worker.2, release, cron.<id>); by default web.<instance>, or run.<runId>. */
  process?: string;
}

export interface LoggedLine {
  stream: OutputStream;
  line: string;
}

export interface ProcessLogOptions {
  /** Lines of the process's output not to store (health-log.ts). */
  drop?: (line: string) => boolean;
  /** How many of its last lines recent() returns. */
  keep?: number;
}

export interface ProcessLog {
  sink: OutputSink;
  /** Emits unterminated last lines (call once the process exited). */
  end(): void;
  /** A line from the platform itself (stream "system"). */
  system(line: string): void;
  /** The process's last output lines (stdout and stderr, in order, redacted), up to `keep`. */
  recent(): LoggedLine[];
}

export function processLog(store: LogStore, target: LogTarget, redact: () => Redact, options: ProcessLogOptions = {}): ProcessLog {
  const keep = options.keep ?? 0;
  const recent: LoggedLine[] = [];
  const process = target.process ?? (target.instance ? `web.${target.instance}` : target.runId ? `run.${target.runId}` : null);
  // The platform's own lines about the process (stream system) are not the process's.
  const append = (stream: OutputStream | "system", line: string) =>
    store.append(target.appId, {
      kind: target.kind,
      deploymentId: target.deploymentId,
      instance: target.instance ?? null,
      runId: target.runId ?? null,
      process: stream === "system" ? null : process,
      stream,
      line,
    });
  const write = (stream: OutputStream | "system") => (line: string) => append(stream, redact()(line));
  const output = (stream: OutputStream) => (raw: string) => {
    if (options.drop?.(raw)) return;
    const line = redact()(raw);
    append(stream, line);
    if (keep === 0) return;
    recent.push({ stream, line });
    if (recent.length > keep) recent.shift();
  };
  const splitters: Record<OutputStream, LineSplitter> = {
    stdout: new LineSplitter(output("stdout")),
    stderr: new LineSplitter(output("stderr")),
  };
  return {
    sink: (stream, chunk) => splitters[stream].write(chunk),
    end: () => {
      splitters.stdout.end();
      splitters.stderr.end();
    },
    system: write("system"),
    recent: () => [...recent],
  };
}
