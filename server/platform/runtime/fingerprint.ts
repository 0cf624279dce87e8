// What defines an instance, hashed: a restarted platform adopts an instance an earlier one left running only when a
// start it would make now would run the same thing (same argv, env, limits, release and data binding). Anything
// that changed while no platform ran (an env var edited in the database, new limits) gives another fingerprint:
// that instance is not adopted, and the boot's reap() removes it. Shared by every driver that adopts.
import { createHash } from "node:crypto";
import path from "node:path";
import type { InstanceSpec, ReleaseRef } from "./types.ts";

export function releaseOf(spec: InstanceSpec): ReleaseRef {
  return spec.release ?? { slug: spec.appKey, deploymentId: path.basename(spec.workDir) };
}

/** `dataPath`: where the driver binds the app's data directory inside its sandbox (part of what the app sees). */
export function instanceFingerprint(spec: InstanceSpec, dataPath: string | null): string {
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
