// Which runtime driver the hosting suite runs on: SLIPWAY_TEST_RUNTIME=docker (npm run test:docker), swarm
// (npm run test:swarm) or local.
// Docker tests that cannot reach an engine are skipped with the reason in their name, never silently.
import { LABEL, createDockerClient, platformId } from "../../server/platform/runtime/docker/client.ts";
import { Cgroup, findMounts } from "../../server/platform/runtime/local/cgroups.ts";
import { keptRoot, killKept, readRecords } from "../../server/platform/runtime/local/kept.ts";

export const TEST_RUNTIME = (process.env.SLIPWAY_TEST_RUNTIME ?? "local") as "local" | "docker" | "swarm";

/** null when the Docker engine answers, else why the docker tests are skipped. */
export async function dockerUnavailable(): Promise<string | null> {
  if (process.getuid?.() !== 0) return "the docker driver needs root (its nftables table, bind mounts of DATA_DIR)";
  try {
    await createDockerClient(process.env.DOCKER_HOST).ping();
    return null;
  } catch (error) {
    return `no Docker engine answers at ${process.env.DOCKER_HOST ?? "/var/run/docker.sock"} (${(error as Error).message})`;
  }
}

/** Services, images and networks of a test platform (they outlive close(), as they would a restart). */
export function removeDockerLeftovers(dataDir: string): Promise<void> {
  return removeLabelled(platformId(dataDir));
}

/** Services, containers, networks and images labelled with a platform key (a DATA_DIR's, or an installation's). */
export async function removeLabelled(platformKey: string): Promise<void> {
  const docker = createDockerClient(process.env.DOCKER_HOST);
  const filters = JSON.stringify({ label: [`${LABEL.platform}=${platformKey}`] });
  const swarm = ((await docker.info()) as { Swarm?: { ControlAvailable?: boolean } }).Swarm?.ControlAvailable;
  if (swarm) for (const s of await docker.listServices({ filters } as object)) await docker.getService(s.ID).remove().catch(() => {});
  for (const c of await docker.listContainers({ all: true, filters })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
  // A swarm network is freed a moment after the last task on it is gone: retried for a few seconds.
  for (let attempt = 0; attempt < 20; attempt++) {
    const left = await docker.listNetworks({ filters });
    for (const n of left) await docker.getNetwork(n.Id).remove().catch(() => {});
    if (!swarm || (await docker.listNetworks({ filters })).length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  for (const i of await docker.listImages({ filters })) await docker.getImage(i.Id).remove({ force: true }).catch(() => {});
}

/**
 * The sandboxes a test platform on the local runtime left running for its next start (they outlive it, as they
 * would a restart); their slots are freed by the next platform's reap once the DATA_DIR is gone.
 */
export async function removeLocalLeftovers(dataDir: string): Promise<void> {
  const root = keptRoot(dataDir);
  const mounts = findMounts();
  for (const record of (await readRecords(root)).records) await killKept(root, record, record.cgroup ? new Cgroup(mounts, record.cgroup) : undefined);
}

/** The env vars that put a platform started by a test on TEST_RUNTIME. */
export function runtimeEnv(): Record<string, string> {
  return TEST_RUNTIME === "local" ? {} : { RUNTIME: TEST_RUNTIME };
}
