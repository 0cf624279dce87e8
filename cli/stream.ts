// Live data over the GraphQL WebSocket (graphql-ws): log lines that survive reconnects without losing or
// repeating a line, and an app's status as it changes.
//
// Log timestamps are unique and ordered per app, so the last one printed is a cursor: after a dropped
// connection the missed lines are read over HTTP with `after` (page by page), then the subscription starts
// again from there, and any line not newer than the cursor is dropped.
import type { Client } from "graphql-ws";
import { Api, NetworkError } from "./api.ts";
import { CliError } from "./output.ts";
import { AppStatusSubscription, LogsQuery, LogsSubscription, RunStatusSubscription } from "./documents.ts";
import type { CliFollowLogsSubscription, CliAppStatusSubscription, CliRunStatusSubscription, LogKind } from "./gql/graphql.ts";

export type LogLine = CliFollowLogsSubscription["appLogs"][number];
type AppState = CliAppStatusSubscription["app"];

const PAGE = 1000;

export async function openSocket(api: Api): Promise<Client> {
  const [{ createClient }, { default: WebSocket }] = await Promise.all([import("graphql-ws"), import("ws")]);
  const target = await api.subscriptionTarget();
  return createClient({
    url: target.url,
    webSocketImpl: WebSocket,
    connectionParams: async () => ({ authorization: `Bearer ${await api.accessToken()}` }),
    retryAttempts: 0,
    lazy: true,
  });
}

async function* subscribe<T>(client: Client, query: string, variables: Record<string, unknown>): AsyncGenerator<T> {
  for await (const result of client.iterate<T>({ query, variables })) {
    // The server's answer (say, the app was deleted): no reconnecting will change it.
    if (result.errors?.length) throw new CliError(result.errors[0].message);
    if (result.data) yield result.data as T;
  }
}

export interface LogRequest {
  slug: string;
  kind: LogKind;
  deployment?: string | null;
  run?: string | null;
}

export interface LogFollower {
  /** The newest timestamp printed so far. */
  readonly cursor: string | null;
  /** Reads and prints whatever is newer than the cursor (over HTTP). */
  catchUp(): Promise<void>;
  /** Runs until stop(): subscribes, and after a dropped connection catches up and subscribes again. */
  run(): Promise<void>;
  stop(): void;
}

export function followLogs(api: Api, request: LogRequest, after: string | null, onLines: (lines: LogLine[]) => void, onReconnect?: (error: Error) => void): LogFollower {
  let cursor = after;
  let stopped = false;
  let client: Client | null = null;
  let wake: (() => void) | null = null;
  const emit = (lines: LogLine[]) => {
    const fresh = cursor ? lines.filter((l) => l.timestamp > cursor!) : lines;
    if (!fresh.length) return;
    cursor = fresh[fresh.length - 1].timestamp;
    onLines(fresh);
  };
  const variables = () => ({ slug: request.slug, kind: request.kind, deployment: request.deployment ?? null, run: request.run ?? null });

  const follower: LogFollower = {
    get cursor() {
      return cursor;
    },
    async catchUp() {
      for (;;) {
        const { appLogs } = await api.graphql(LogsQuery, { ...variables(), after: cursor, limit: PAGE });
        emit(appLogs);
        if (appLogs.length < PAGE || !cursor) return;
      }
    },
    async run() {
      let delay = 250;
      while (!stopped) {
        try {
          if (cursor) await follower.catchUp();
          client = await openSocket(api);
          for await (const data of subscribe<{ appLogs: LogLine[] }>(client, LogsSubscription.toString(), { ...variables(), after: cursor, limit: PAGE })) {
            delay = 250;
            emit(data.appLogs);
            if (stopped) break;
          }
          if (stopped) break;
          throw new Error("the server ended the log stream");
        } catch (error) {
          if (stopped) break;
          if (error instanceof CliError && !(error instanceof NetworkError)) throw error;
          onReconnect?.(error instanceof Error ? error : new Error(describeClose(error)));
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, delay);
          });
          delay = Math.min(delay * 2, 5000);
        } finally {
          await client?.dispose();
          client = null;
        }
      }
    },
    stop() {
      stopped = true;
      void client?.dispose();
      wake?.();
    },
  };
  return follower;
}

/** graphql-ws rejects with the socket's CloseEvent (or an ErrorEvent) when the connection fails. */
function describeClose(event: unknown): string {
  const e = event as { code?: number; reason?: string; message?: string };
  if (e?.message) return e.message;
  if (e?.code) return `connection closed (${e.code}${e.reason ? `: ${e.reason}` : ""})`;
  return "connection lost";
}

const SETTLED = new Set(["LIVE", "FAILED", "CANCELED", "SUPERSEDED"]);

/** Resolves with the deployment once it has settled (live, failed, canceled or superseded), and the app's URL. */
export async function waitForDeployment(api: Api, slug: string, id: string): Promise<{ status: string; error: string | null; url: string }> {
  const client = await openSocket(api);
  try {
    for await (const data of subscribe<{ app: AppState }>(client, AppStatusSubscription.toString(), { slug })) {
      const deployment = data.app.deployments.find((d) => d.id === id);
      if (!deployment) return { status: "SUPERSEDED", error: "A newer deployment replaced it.", url: data.app.url };
      if (SETTLED.has(deployment.status)) return { status: deployment.status, error: deployment.error ?? null, url: data.app.url };
    }
    throw new Error("The server ended the status stream before the deployment settled.");
  } finally {
    await client.dispose();
  }
}

export type RunState = NonNullable<CliRunStatusSubscription["app"]["run"]>;
const RUN_FINISHED = new Set(["SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELED"]);

/** Resolves with the run once it has finished (its status, exit code, and why it ended without one). */
export async function waitForRun(api: Api, slug: string, id: string): Promise<RunState> {
  const client = await openSocket(api);
  try {
    for await (const data of subscribe<CliRunStatusSubscription>(client, RunStatusSubscription.toString(), { slug, id })) {
      const run = data.app.run;
      if (!run) throw new CliError(`The run ${id} is gone (the app was deleted?).`);
      if (RUN_FINISHED.has(run.status)) return run;
    }
    throw new Error("The server ended the status stream before the run finished.");
  } finally {
    await client.dispose();
  }
}
