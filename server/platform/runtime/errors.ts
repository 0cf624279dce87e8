import { AppError } from "../../errors.ts";

/**
 * A build or an app cannot run because the sandbox lacks a layer the operator did not agree to go without. Shown as
 * it is: it tells the operator (and the app's owner, in a failed deploy) what the machine lacks.
 */
export class SandboxUnavailableError extends AppError {
  override readonly status = 503;
  override readonly code = "sandbox_unavailable";
  constructor(readonly missing: string[]) {
    super(
      `Apps cannot run here: the sandbox lacks ${missing.join(", ")} (see the runtime's report at boot). ` +
        "Run the platform as root with bubblewrap, nftables, iproute2 and cgroup v1 controllers, " +
        "or set SANDBOX_ALLOW_PARTIAL=true to run apps with only what is available.",
    );
    this.name = "SandboxUnavailableError";
  }
}
