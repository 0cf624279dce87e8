// What defines a web container, hashed into its labels: a restarted platform adopts a running container only when a
// start it would make now would run the same thing (same argv, env, limits, release and data binding). Anything
// that changed while no platform ran (an env var edited in the database, new limits) gives another fingerprint:
// that container is not adopted, and the boot's reap() removes it.
import { createHash } from "node:crypto";
import path from "node:path";
import type { InstanceSpec, ReleaseRef } from "../types.ts";
import { LABEL } from "./client.ts";

export function releaseOf(spec: InstanceSpec): ReleaseRef {
  return spec.release ?? { slug: spec.appKey, deploymentId: path.basename(spec.workDir) };
}

export function instanceFingerprint(spec: InstanceSpec, dataPath: string): string {
  const defining = {
    argv: spec.argv,
    // Sorted: the same variables in another order are the same environment.
    env: Object.entries(spec.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    limits: [spec.limits.memoryBytes, spec.limits.cpuPercent, spec.limits.pids],
    release: releaseOf(spec),
    data: spec.dataDir ? [path.resolve(spec.dataDir), dataPath] : null,
  };
  return createHash("sha256").update(JSON.stringify(defining)).digest("hex");
}

/** The labels of a web container beyond platform, app, instance and kind; what adopt() filters on. */
export function adoptionLabels(spec: InstanceSpec, dataPath: string): Record<string, string> {
  return {
    [LABEL.deployment]: releaseOf(spec).deploymentId,
    ...(spec.index !== undefined ? { [LABEL.index]: String(spec.index) } : {}),
    [LABEL.fingerprint]: instanceFingerprint(spec, dataPath),
  };
}
