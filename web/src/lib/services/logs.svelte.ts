// An app's build, runtime or one-off run log, live: the subscription sends the history, then each new batch of lines.
// Lines are kept once each by timestamp (unique and ordered per app; urql hands the last payload over again
// when a subscription ends), parsed for colours once, and only the newest MAX_LINES are kept.
import { graphql } from "$lib/gql";
import { watch } from "$lib/graphql/client";
import { parseAnsi, stripAnsi, type Segment } from "$lib/logs/ansi";
import { problemFrom } from "./errors";

export interface LogLineView {
  timestamp: string;
  stream: "stdout" | "stderr" | "system";
  /** The process that wrote it ("web.2", "worker.1", "release"), for an app's own output; null otherwise. */
  source: string | null;
  segments: Segment[];
  /** Without escape sequences, for searching. */
  text: string;
}

const MAX_LINES = 2000;

const LogsSubscription = graphql(`
  subscription AppLogsLive($slug: String!, $kind: LogKind!, $deployment: ID, $run: ID, $limit: Int) {
    appLogs(slug: $slug, kind: $kind, deployment: $deployment, run: $run, limit: $limit) {
      timestamp
      stream
      instance
      process
      line
    }
  }
`);

export class LiveLog {
  lines = $state.raw<LogLineView[]>([]);
  /** Why the stream stopped, when it did. */
  problem = $state<string | null>(null);
  /** True once the history has arrived. */
  loaded = $state(false);

  /** Starts streaming (from a fresh, empty log); returns the function that stops it. */
  watch(variables: { slug: string; kind: "build" | "runtime" | "run"; deployment?: string | null; run?: string | null }): () => void {
    this.lines = [];
    this.problem = null;
    this.loaded = false;
    let last = "";
    return watch(LogsSubscription, { ...variables, limit: 500 }, (result) => {
      if (result.error) {
        this.problem = problemFrom(result.error).message;
        return;
      }
      const fresh = (result.data?.appLogs ?? []).filter((l) => l.timestamp > last);
      this.loaded = true;
      if (fresh.length === 0) return;
      last = fresh[fresh.length - 1].timestamp;
      const views = fresh.map((l) => ({ timestamp: l.timestamp, stream: l.stream, source: sourceOf(l, variables.kind), segments: parseAnsi(l.line), text: stripAnsi(l.line) }));
      this.lines = [...this.lines, ...views].slice(-MAX_LINES);
    });
  }
}

function sourceOf(line: { instance?: number | null; process?: string | null }, kind: string): string | null {
  // Every line of a run's output is that run's: naming it on each line would say nothing.
  if (kind === "run") return null;
  // Lines stored before LogLine.process name only their web instance.
  return line.process ?? (line.instance ? `web.${line.instance}` : null);
}
