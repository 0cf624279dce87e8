// A task's stdout and stderr from the Engine API (/tasks/{id}/logs, followed), demultiplexed into the same
// OutputSink the other drivers feed: the log layer splits, redacts and stores lines the same way.
import type { Readable } from "node:stream";
import { type Docker, demultiplex } from "../docker/client.ts";
import type { OutputSink } from "../types.ts";

/** Follows one task's output until the task ends or `signal` aborts (the output so far first, from `since`). */
export async function followTaskLogs(docker: Docker, taskId: string, sink: OutputSink, options: { since?: number; signal: AbortSignal }): Promise<void> {
  const task = docker.getTask(taskId) as unknown as { logs(options: object): Promise<unknown> };
  const stream = (await task.logs({
    follow: true,
    stdout: true,
    stderr: true,
    since: options.since ?? 0,
    abortSignal: options.signal,
  })) as Readable;
  const abort = () => stream.destroy();
  options.signal.addEventListener("abort", abort);
  try {
    await demultiplex(stream, sink);
  } finally {
    options.signal.removeEventListener("abort", abort);
  }
}
