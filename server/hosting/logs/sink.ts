// Connects a process's output to the log store: one line splitter per stream, each line redacted of the
// app's secrets before it is stored.
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
}

export interface ProcessLog {
  sink: OutputSink;
  /** Emits unterminated last lines (call once the process exited). */
  end(): void;
  /** A line from the platform itself (stream "system"). */
  system(line: string): void;
}

export function processLog(store: LogStore, target: LogTarget, redact: () => Redact): ProcessLog {
  const write = (stream: OutputStream | "system") => (line: string) =>
    store.append(target.appId, { kind: target.kind, deploymentId: target.deploymentId, instance: target.instance ?? null, stream, line: redact()(line) });
  const splitters: Record<OutputStream, LineSplitter> = {
    stdout: new LineSplitter(write("stdout")),
    stderr: new LineSplitter(write("stderr")),
  };
  return {
    sink: (stream, chunk) => splitters[stream].write(chunk),
    end: () => {
      splitters.stdout.end();
      splitters.stderr.end();
    },
    system: write("system"),
  };
}
