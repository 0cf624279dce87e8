// An app container's kind and adoption labels: its process type, release, index and fingerprint (../fingerprint.ts),
// what start() puts on it and adopt() filters on.
import type { InstanceSpec } from "../types.ts";
import { instanceFingerprint, releaseOf } from "../fingerprint.ts";
import { LABEL } from "./client.ts";

export { releaseOf };

/** An app container's kind (web, or another process type) and its labels beyond platform, app, instance and kind. */
export function adoptionLabels(spec: InstanceSpec, dataPath: string): { kind: "web" | "process"; labels: Record<string, string> } {
  const web = (spec.process ?? "web") === "web";
  return {
    kind: web ? "web" : "process",
    labels: {
      ...(web ? {} : { [LABEL.process]: spec.process! }),
      [LABEL.deployment]: releaseOf(spec).deploymentId,
      ...(spec.index !== undefined ? { [LABEL.index]: String(spec.index) } : {}),
      [LABEL.fingerprint]: instanceFingerprint(spec, dataPath),
    },
  };
}
