import type { ResolvedPlan } from "../builders/types.ts";
import type { CronEntry } from "../cron/entries.ts";
import type { OutputSink, RuntimeDriver, SandboxLimits } from "../../platform/runtime/types.ts";
import type { ServiceSupervisor } from "../service-supervisor.ts";
import type { Release } from "../release.ts";
import type { AppSupervisor, Candidate } from "../supervisor.ts";
import type { Formation, RetiringGroup, Workers } from "../processes/workers.ts";

export interface DeployContext {
  /** `instances`: web's (App.instances). */
  app: { id: string; slug: string; instances: number };
  deploymentId: string;
  /** Where this deployment's release is built (or, for a rollback, the kept release it starts again). */
  releaseDir: string;
  /** The release serving now, if any. */
  previous: Release | null;
  /** Where the source comes from. */
  source: "zip" | "github";
  /** For a zip source: the upload, checked when it arrived; the fetch step extracts it into releaseDir. */
  zip?: string;
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
  /** Output of a process of the release that runs during the build (the release phase), into the build log under its name. */
  processOutput(process: string): { sink: OutputSink; end(): void };
  driver: RuntimeDriver;
  /** The app's process supervisor (every runtime but an orchestrator). */
  supervisor?: AppSupervisor;
  /** On an orchestrator (RUNTIME=swarm): the app's service, which rolls releases out itself. */
  service?: ServiceSupervisor;
  /** The app's process types beside web (Slipway's own instances, or a Swarm service per type). */
  workers?: Workers;
  /** The previous release's groups of those types, once the new ones started: the retire step stops them. */
  replacedWorkers?: RetiringGroup[];
  /** How many instances of each of those types run (App.formation), read when asked: a scale during the build counts. */
  formation(): Promise<Formation | null>;
  /** The owner's maxInstances, which web and the other types count against together. */
  maxInstances?: () => Promise<number>;
  buildLimits: SandboxLimits;
  /** What every build sees besides the app's env vars (BUILD_ENV, BUILD_READONLY_PATHS), and the app's build cache. */
  build: { env: Record<string, string>; readOnlyPaths: string[]; cacheDir: string };
}

export interface Step {
  name: string;
  /** What the build log says as the step begins. */
  label: string;
  /** True when the step has nothing to do for this deployment: it is left out of the log and the timings. */
  skip?(ctx: DeployContext): boolean;
  run(ctx: DeployContext): Promise<void>;
}
