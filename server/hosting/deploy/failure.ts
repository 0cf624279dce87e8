// What a deployment that did not go live says: its error, in words the user can act on (a DeployError's, a
// BuildError's, or a masked one for Slipway's own failures), and for a start that failed, the app's last output
// lines: they follow the failure line in the build log and stay with the deployment (Deployment.failureOutput).
import { SandboxUnavailableError } from "../../platform/runtime/index.ts";
import type { LogLineRecord } from "../logs/store.ts";
import { AppError } from "../../errors.ts";
import { DeployCanceled } from "../errors.ts";
import { StartFailed } from "../health.ts";

export interface Failure {
  canceled: boolean;
  /** Not the user's doing: for the operator's log. */
  unexpected: boolean;
  message: string;
  /** The app's last output lines, for a start that failed; null otherwise. */
  output: string[] | null;
  /** What the build log says of it, in order. */
  buildLog: Pick<LogLineRecord, "stream" | "line">[];
}

export function describeFailure(error: unknown, aborted: boolean): Failure {
  const canceled = error instanceof DeployCanceled || aborted;
  const shown = error instanceof AppError && error.expose && (error.status < 500 || error instanceof SandboxUnavailableError);
  const message = canceled ? "The deployment was canceled." : shown ? (error as Error).message : "The deployment failed on Slipway's side; try again.";
  if (canceled) return { canceled, unexpected: false, message, output: null, buildLog: [{ stream: "system", line: "Canceled: the previous release keeps serving." }] };
  const buildLog: Failure["buildLog"] = [{ stream: "system", line: `Failed: ${message}` }];
  const output = error instanceof StartFailed ? error.output : [];
  if (error instanceof StartFailed) buildLog.push({ stream: "system", line: output.length ? "The app's last output before it stopped:" : "The app wrote nothing before it stopped." });
  buildLog.push(...output);
  return { canceled, unexpected: !shown, message, output: output.length ? output.map((o) => o.line) : null, buildLog };
}
