// Build, runtime and run logs of an app, polled by `after` or watched live.
import { InvalidRequestError } from "../errors.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import type { LogKind, LogLineRecord } from "../hosting/logs/store.ts";
import { isLogTimestamp } from "../hosting/logs/timestamps.ts";
import type { AppService } from "./apps.ts";
import type { DeploymentService } from "./deployments.ts";
import type { RunRow, RunService } from "./runs.ts";
import { FINISHED_RUN } from "../hosting/runs/outcome.ts";
import { mergeStreams } from "./merge-streams.ts";

/** A batch of a run's output lines, with the run as it stands; the last one comes once it finished. */
export interface RunOutput {
  lines: LogLineRecord[];
  run: RunRow;
}

export interface LogRequest {
  kind?: LogKind | null;
  after?: string | null;
  limit?: number | null;
  deployment?: string | null;
  /** For run logs: the run (default: the latest). */
  run?: string | null;
}

export const MAX_LOG_LIMIT = 1000;
const DEFAULT_LOG_LIMIT = 200;

export function createLogService(deps: { apps: AppService; deployments: DeploymentService; runs: RunService; engine: ClusterEngine }) {
  const { apps, deployments, runs, engine } = deps;

  async function resolve(ownerId: string, slug: string, request: LogRequest) {
    const app = await apps.mine(ownerId, slug);
    const kind = request.kind ?? "runtime";
    const limit = request.limit ?? DEFAULT_LOG_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LOG_LIMIT) {
      throw new InvalidRequestError(`limit must be between 1 and ${MAX_LOG_LIMIT}.`, { limit: `Use 1 to ${MAX_LOG_LIMIT}.` });
    }
    if (request.after != null && !isLogTimestamp(request.after)) {
      throw new InvalidRequestError("after must be the timestamp of a log line, like 2026-01-31T12:00:00.000000001Z.", { after: "Not a log timestamp." });
    }
    let deploymentId = request.deployment ?? null;
    if (deploymentId) await deployments.ofApp(app.id, deploymentId);
    else if (kind === "build") deploymentId = (await deployments.latest(app.id))?.id ?? null;
    let runId = request.run ?? null;
    if (runId) await runs.ofApp(app.id, runId);
    else if (kind === "run") runId = (await runs.latest(app.id))?.id ?? null;
    return { app, query: { kind, after: request.after ?? null, limit, deploymentId, runId } };
  }

  return {
    async read(ownerId: string, slug: string, request: LogRequest): Promise<LogLineRecord[]> {
      const { app, query } = await resolve(ownerId, slug, request);
      if ((query.kind === "build" && !query.deploymentId) || (query.kind === "run" && !query.runId)) return [];
      return engine.logs.query(app.id, query);
    },

    async watch(ownerId: string, slug: string, request: LogRequest): Promise<AsyncGenerator<LogLineRecord[]>> {
      const { app, query } = await resolve(ownerId, slug, request);
      return engine.logs.watch(app.id, query);
    },

    /** A run's output, history then live, each batch with the run; it ends once the run finished and every line was sent. */
    async watchRun(ownerId: string, slug: string, runId: string, after: string | null): Promise<AsyncGenerator<RunOutput>> {
      const { app, query } = await resolve(ownerId, slug, { kind: "run", run: runId, after, limit: MAX_LOG_LIMIT });
      // Both streams wait on the pubsub; ending them goes through this signal, which releases their waits.
      const ending = new AbortController();
      const events = mergeStreams(engine.logs.watch(app.id, query, ending.signal), await apps.watch(ownerId, slug, ending.signal));
      const rest = async (from: string | null) => {
        const all: LogLineRecord[] = [];
        for (let page = await engine.logs.query(app.id, { ...query, after: from }); page.length; page = page.length < MAX_LOG_LIMIT ? [] : await engine.logs.query(app.id, { ...query, after: page.at(-1)!.timestamp })) {
          all.push(...page);
        }
        return all;
      };
      const output = (async function* () {
        let last = after;
        try {
          // next() by hand: a for-await would close the streams before the signal released them.
          for (let event = await events.next(); !event.done; event = await events.next()) {
            const run = await runs.ofApp(app.id, runId);
            if (event.value.from === "a" && event.value.value.length) {
              last = event.value.value.at(-1)!.timestamp;
              yield { lines: event.value.value, run };
            }
            if (!FINISHED_RUN.has(run.status)) continue;
            // Its whole output was stored before it read as finished: what the stream has not sent yet is in the store.
            yield { lines: await rest(last), run };
            return;
          }
        } finally {
          ending.abort();
          await events.return(undefined);
        }
      })();
      // A client that unsubscribes while the stream waits: the signal first releases the wait, then it returns.
      const finish = output.return.bind(output);
      output.return = (value) => {
        ending.abort();
        return finish(value);
      };
      return output;
    },
  };
}
