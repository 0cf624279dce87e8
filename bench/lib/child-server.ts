// Servers set up in a child process of their own, so that their traffic does not shape the JIT state of the
// code that the servers in the bench process run (all Slipway servers share one schema and its resolvers:
// graphql-js `execute` traffic on one left the compiled path of another 60–70% slower on this bench).
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { collectGarbage, localBusy, type BusyProbe } from "./busy.ts";

type ToChild = { type: "start" } | { type: "stop" } | { type: "close" };
type FromChild = { type: "ready"; value: unknown } | { type: "started" } | { type: "stopped"; activeMs: number } | { type: "failed"; message: string };

export interface ChildServers<T> {
  /** What the child's setup returned (JSON). */
  value: T;
  /** The child's main-thread busy time. */
  busy: BusyProbe;
  close(): Promise<void>;
}

/** Forks `entry` (a module calling serveFromChild) with `env` in BENCH_CHILD_ENV and waits for its setup. */
export async function startChildServers<T>(entry: URL, env: Record<string, string>): Promise<ChildServers<T>> {
  const child = fork(fileURLToPath(entry), { env: { ...process.env, BENCH_CHILD_ENV: JSON.stringify(env) }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const next = () => nextMessage(child);
  const ready = await next();
  if (ready.type !== "ready") {
    child.kill();
    throw new Error(ready.type === "failed" ? ready.message : `unexpected ${ready.type} from the bench child`);
  }
  const ask = async (message: ToChild) => {
    child.send(message);
    return next();
  };
  return {
    value: ready.value as T,
    busy: {
      async start() {
        collectGarbage(); // the load generator's, in this process
        await ask({ type: "start" });
      },
      async stop() {
        const answer = await ask({ type: "stop" });
        if (answer.type !== "stopped") throw new Error(`unexpected ${answer.type} from the bench child`);
        return answer.activeMs;
      },
    },
    async close() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ type: "close" } satisfies ToChild);
      await exited;
    },
  };
}

/** The child's side: answers busy-time questions about this process until told to close. */
export function serveFromChild(value: unknown, close: () => Promise<void>): void {
  const busy = localBusy();
  const send = (message: FromChild) => process.send!(message);
  process.on("message", (message: ToChild) => {
    if (message.type === "start") void busy.start().then(() => send({ type: "started" }));
    if (message.type === "stop") void busy.stop().then((activeMs) => send({ type: "stopped", activeMs }));
    if (message.type === "close") void close().finally(() => process.exit(0));
  });
  send({ type: "ready", value });
}

/** Reports a child's failed setup to its parent. */
export function failInChild(error: unknown): void {
  process.send!({ type: "failed", message: error instanceof Error ? error.message : String(error) } satisfies FromChild);
  process.exit(1);
}

function nextMessage(child: ChildProcess): Promise<FromChild> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromChild) => {
      child.off("exit", onExit);
      resolve(message);
    };
    const onExit = (code: number | null) => {
      child.off("message", onMessage);
      reject(new Error(`the bench child exited (${code}) before answering`));
    };
    child.once("message", onMessage);
    child.once("exit", onExit);
  });
}
