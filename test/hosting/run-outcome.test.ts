// How a one-off run ended, from what the runtime driver reports: its own exit code, its timeout, a cancel, the
// platform stopping under it, or a signal.
import { describe, expect, it } from "vitest";
import { runOutcome } from "../../server/hosting/runs/outcome.ts";

const exit = (code: number | null, more: Partial<{ signal: NodeJS.Signals; timedOut: boolean; aborted: boolean }> = {}) => ({ code, signal: null, timedOut: false, aborted: false, ...more });

describe("a run's outcome", () => {
  it("is SUCCEEDED on exit code 0 and FAILED with the code otherwise", () => {
    expect(runOutcome(exit(0), 60)).toEqual({ status: "SUCCEEDED", exitCode: 0, error: null, line: "Exited with code 0." });
    expect(runOutcome(exit(3), 60)).toEqual({ status: "FAILED", exitCode: 3, error: null, line: "Exited with code 3." });
  });

  it("is TIMED_OUT past its timeout, CANCELED when aborted, FAILED when the platform stops or a signal ends it", () => {
    expect(runOutcome(exit(null, { signal: "SIGKILL", timedOut: true }), 5)).toMatchObject({ status: "TIMED_OUT", exitCode: null, error: expect.stringContaining("timeout of 5 s") });
    expect(runOutcome(exit(null, { signal: "SIGKILL", aborted: true }), 5)).toMatchObject({ status: "CANCELED", exitCode: null });
    expect(runOutcome(exit(null, { signal: "SIGKILL", aborted: true }), 5, true)).toMatchObject({ status: "FAILED", error: expect.stringMatching(/platform stopped/) });
    expect(runOutcome(exit(null, { signal: "SIGTERM" }), 5)).toMatchObject({ status: "FAILED", exitCode: null, error: expect.stringContaining("signal SIGTERM") });
  });
});
