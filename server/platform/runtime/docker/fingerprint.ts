// An app container's adoption labels: its release, index and fingerprint (../fingerprint.ts), what adopt() filters on.
import type { InstanceSpec } from "../types.ts";
import { instanceFingerprint, releaseOf } from "../fingerprint.ts";
import { LABEL } from "./client.ts";

export { releaseOf };

/** The labels of an app container (web or another process type) beyond platform, app, instance and kind; what adopt() filters on. */
export function adoptionLabels(spec: InstanceSpec, dataPath: string): Record<string, string> {
  return {
    [LABEL.deployment]: releaseOf(spec).deploymentId,
    ...(spec.index !== undefined ? { [LABEL.index]: String(spec.index) } : {}),
    [LABEL.fingerprint]: instanceFingerprint(spec, dataPath),
  };
}
