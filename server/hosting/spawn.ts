// What the driver starts for one instance of a release, web's or another process type's (sandboxed alike, from the
// release's folder with the app's data directory), and web's instance as the supervisor follows it: a Replica, its
// output logged under its index, its exit recorded.
import { randomUUID } from "node:crypto";
import type { InstanceSpec, OutputSink, SandboxLimits } from "../platform/runtime/types.ts";
import { processEnv } from "./builders/types.ts";
import { describeExit } from "./health.ts";
import { instanceLogOptions } from "./health-log.ts";
import { processLog } from "./logs/sink.ts";
import { moveReplica, releaseRef, replicaName, type Replica } from "./replicas.ts";
import type { Release } from "./release.ts";
import type { SupervisorDeps } from "./supervisor.ts";

export interface InstanceParts {
  index: number;
  /** web.1, worker.2: its DYNO. */
  name: string;
  argv: string[];
  /** The app's env vars. */
  vars: Record<string, string>;
  dataDir: string;
  limits: SandboxLimits;
  onOutput: OutputSink;
}

export function instanceSpec(app: { id: string; slug: string }, release: Release, instance: InstanceParts): InstanceSpec & { index: number } {
  return {
    appKey: app.id,
    instanceId: randomUUID(),
    index: instance.index,
    workDir: release.dir,
    dataDir: instance.dataDir,
    argv: instance.argv,
    // DYNO, as on Heroku: which instance it is.
    env: { ...processEnv(release.web, instance.vars), DYNO: instance.name },
    limits: instance.limits,
    onOutput: instance.onOutput,
    release: releaseRef(app.slug, release.dir),
  };
}

export type SpawnDeps = Pick<SupervisorDeps, "driver" | "logs" | "limits" | "clock" | "healthOf" | "envOf" | "dataDirOf" | "redactorOf">;

/**
 * Spawns web instance `index` of the release (`env`: the app's env vars, read now when not given); with `adopt`,
 * takes the one an earlier platform left running instead (null: none runs what this start would). `onExit` hears
 * of its exit once it is recorded.
 */
export async function spawnReplica(
  deps: SpawnDeps,
  app: { id: string; slug: string },
  release: Release,
  index: number,
  how: { env?: Record<string, string>; adopt?: "adopt"; onExit(replica: Replica): void },
): Promise<Replica | null> {
  const log = processLog(deps.logs, { appId: app.id, kind: "runtime", deploymentId: release.deploymentId, instance: index }, () => deps.redactorOf(app.id), instanceLogOptions(() => deps.healthOf(app.id, release.web).path));
  const spec = instanceSpec(app, release, {
    index,
    name: replicaName(index),
    argv: release.web.kind === "static" ? [] : release.web.argv,
    vars: how.env ?? (await deps.envOf(app.id)),
    dataDir: deps.dataDirOf(app.id),
    limits: deps.limits,
    onOutput: log.sink,
  });
  const instance = how.adopt ? await deps.driver.adopt?.(spec) : await deps.driver.start(spec);
  if (!instance) return null;
  const replica: Replica = { index, instance, log, startedAt: deps.clock.now(), state: "starting", failures: 0 };
  void instance.exited.then((exit) => {
    log.end();
    replica.exit = describeExit(exit);
    moveReplica(replica, "exited");
    how.onExit(replica);
  });
  return replica;
}
