// How a one-off run ended, from what the runtime driver reports: the status and exit code the Run records, and
// the line its output ends with.
import type { RunResult } from "../../platform/runtime/types.ts";
import { describeExit } from "../health.ts";

export type RunStatus = "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "TIMED_OUT" | "CANCELED";

export const FINISHED_RUN: ReadonlySet<RunStatus> = new Set(["SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELED"]);

export interface RunOutcome {
  status: RunStatus;
  exitCode: number | null;
  /** Why it ended without an exit code of its own; null when it exited by itself. */
  error: string | null;
  line: string;
}

/** `stopping`: the platform shut down under it (an abort that no one asked for). */
export function runOutcome(result: RunResult, timeoutSeconds: number, stopping = false): RunOutcome {
  if (result.timedOut) {
    const error = `Stopped after its timeout of ${timeoutSeconds} s, with every process it started.`;
    return { status: "TIMED_OUT", exitCode: null, error, line: error };
  }
  if (result.aborted && stopping) {
    const error = "The platform stopped while it ran; it was not run again.";
    return { status: "FAILED", exitCode: null, error, line: error };
  }
  if (result.aborted) return { status: "CANCELED", exitCode: null, error: "Canceled.", line: "Canceled: stopped with every process it started." };
  if (result.code === null) {
    const error = `It ended without an exit code (${describeExit(result)}).`;
    return { status: "FAILED", exitCode: null, error, line: error };
  }
  return { status: result.code === 0 ? "SUCCEEDED" : "FAILED", exitCode: result.code, error: null, line: `Exited with code ${result.code}.` };
}
