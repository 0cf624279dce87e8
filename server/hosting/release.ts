// A release: what a deployment built (or a rollback starts again), kept on disk in its own folder, and the
// processes it runs.
import type { ProcessCommands, WebProcess } from "./builders/types.ts";

export interface Release {
  deploymentId: string;
  dir: string;
  web: WebProcess;
  /** The Procfile's types beside web (hosting/processes/workers.ts runs them). */
  processes?: ProcessCommands;
}
