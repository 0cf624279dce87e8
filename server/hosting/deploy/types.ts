import type { ResolvedPlan } from "../builders/types.ts";
import type { CronEntry } from "../cron/entries.ts";
import type { OutputSink, RuntimeDriver, SandboxLimits } from "../../platform/runtime/types.ts";
import type { ServiceSupervisor } from "../service-supervisor.ts";
import type { AppSupervisor, Candidate, Release } from "../supervisor.ts";

export interface DeployContext {
  app: { id: string; slug: string };
  deploymentId: string;
  /** Where this deployment's release is built (or, for a rollback, the kept release it starts again). */
  releaseDir: string;
  /** The release serving now, if any. */
  previous: Release | null;
  /** Where the source comes from; a zip is checked and extracted into releaseDir when it is uploaded. */
  source: "zip" | "github";
  /** For a github source: what to fetch (the token, when any, is for this fetch only). */
  git?: { baseUrl: string; repo: string; branch: string | null; commit: string | null; token: string | null };
  /** Records the commit the git source checked out on the deployment. */
  recordCommit(commit: string, message: string): Promise<void>;
  /** The kept release, for a rollback. */
  rollbackOf?: Release;
  plan?: ResolvedPlan;
  /** The release's app.json cron jobs, once detected; kept with it (Deployment.cron), a rollback keeps its own. */
  cron?: CronEntry[];
  /** Records which builder builds the deployment, once detected. */
  recordBuilder(builder: string): Promise<void>;
  candidate?: Candidate;
  replaced?: Candidate | null;
  signal: AbortSignal;
  /** When the build time limit runs out. */
  buildDeadline: number;
  env: Record<string, string>;
  /** A line of the platform's own in the build log. */
  log(line: string): void;
  /** Output of build commands, into the build log. */
  output: OutputSink;
  driver: RuntimeDriver;
  /** The app's process supervisor (every runtime but an orchestrator). */
  supervisor?: AppSupervisor;
  /** On an orchestrator (RUNTIME=swarm): the app's service, which rolls releases out itself. */
  service?: ServiceSupervisor;
  buildLimits: SandboxLimits;
  /** What every build sees besides the app's env vars (BUILD_ENV, BUILD_READONLY_PATHS), and the app's build cache. */
  build: { env: Record<string, string>; readOnlyPaths: string[]; cacheDir: string };
}

export interface Step {
  name: string;
  /** What the build log says as the step begins. */
  label: string;
  run(ctx: DeployContext): Promise<void>;
}
