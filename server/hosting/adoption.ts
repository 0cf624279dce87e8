// After a platform restart, a driver whose instances outlive the platform (docker) hands back the ones still running
// what a start would run now (same release, argv, env, limits: the driver's fingerprint). They keep their process:
// no restart, no gap. One that does not pass its health check within a short while is stopped and started afresh.
import { waitUntilHealthy } from "./health.ts";
import type { HealthProbe } from "./health-settings.ts";
import { moveReplica, replicaName, type Replica } from "./replicas.ts";

/** An adopted instance has been serving: it answers at once, or something is wrong with it. */
const ADOPT_ANSWER_MS = 5000;

/** The instances `adoptOne` found running for these indexes that pass their health check, healthy; the others are stopped. */
export async function adoptReplicas(indexes: number[], adoptOne: (index: number) => Promise<Replica | null>, probe: HealthProbe, stopGraceMs: number): Promise<Replica[]> {
  const found = (await Promise.all(indexes.map(adoptOne))).filter((replica) => replica !== null);
  const answering = await Promise.all(found.map((replica) => waitUntilHealthy(replica, probe, ADOPT_ANSWER_MS).then(() => true, () => false)));
  const adopted = found.filter((_, i) => answering[i]);
  await Promise.all(found.filter((_, i) => !answering[i]).map((replica) => replica.instance.stop(stopGraceMs).catch(() => {})));
  for (const replica of adopted) moveReplica(replica, "passed");
  return adopted;
}

/** The app's log line: what kept running through the restart, and what starts again. */
export function adoptedLine(adopted: Replica[], missing: number[]): string {
  const kept = adopted.map((r) => replicaName(r.index)).join(", ");
  const started = missing.length ? ` Starting ${missing.map(replicaName).join(", ")}.` : "";
  return `The platform restarted: ${kept} kept running and serve${adopted.length === 1 ? "s" : ""} again.${started}`;
}
