// Docker Swarm for the tests that need it: the local engine made a single-node swarm through the Engine API
// (left initialised afterwards: plain containers keep working), and the services a test server left behind.
import { createDockerClient, LABEL, platformId } from "../../server/platform/runtime/docker/client.ts";

export const docker = createDockerClient(process.env.DOCKER_HOST);

/** Null once the engine is a swarm manager; else why the swarm tests cannot run here (they skip, saying so). */
export async function ensureSwarm(): Promise<string | null> {
  try {
    await docker.ping();
  } catch (error) {
    return `no Docker engine answers at ${process.env.DOCKER_HOST ?? "/var/run/docker.sock"} (${(error as Error).message})`;
  }
  const info = (await docker.info()) as { Swarm?: { LocalNodeState?: string } };
  if (info.Swarm?.LocalNodeState === "active") return null;
  try {
    await docker.swarmInit({ ListenAddr: "127.0.0.1:2377", AdvertiseAddr: "127.0.0.1" });
    return null;
  } catch (error) {
    return `the Docker engine could not become a swarm manager (${(error as Error).message})`;
  }
}

/** Removes the services and networks of the platform whose DATA_DIR this was (what a failed test left). */
export async function removeServices(dataDir: string): Promise<void> {
  const filters = { label: [`${LABEL.platform}=${platformId(dataDir)}`] };
  for (const service of await docker.listServices({ filters } as object)) await docker.getService(service.ID).remove().catch(() => {});
  for (const network of await docker.listNetworks({ filters: JSON.stringify(filters) } as object)) {
    if ((network as { Scope?: string }).Scope === "swarm") await docker.getNetwork(network.Id).remove().catch(() => {});
  }
}
