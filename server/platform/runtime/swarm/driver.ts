// RUNTIME=swarm: builds and one-off commands run as the docker driver runs them (a hardened container on this
// node, a manager), and apps run as Swarm services (orchestrator.ts) that the engine rolls out itself. The
// sandbox report is the docker driver's, corrected for what services can and cannot enforce on Engine API 1.41.
import type { RuntimeDriver, SandboxReport } from "../types.ts";
import { ensureBaseImage } from "../docker/base-image.ts";
import { createDockerClient, platformId } from "../docker/client.ts";
import { createDockerDriver, type DockerDriverOptions } from "../docker/driver.ts";
import { SWARM_TABLE, setupSwarmFirewall } from "./firewall.ts";
import { SwarmOrchestrator } from "./orchestrator.ts";

export interface SwarmDriverOptions extends DockerDriverOptions {
  /** host[:port] of the registry every node pulls from; null: a single node with local images. */
  registry: string | null;
  startTimeoutMs: number;
  stopGraceMs?: number;
  /** Task list polling (upstreams, crashes, logs of new tasks). */
  pollMs?: number;
  onError?(error: unknown, message: string): void;
}

export async function createSwarmDriver(options: SwarmDriverOptions): Promise<RuntimeDriver> {
  const docker = createDockerClient(options.dockerHost);
  const info = (await docker.info().catch((error: Error) => {
    throw new Error(`RUNTIME=swarm: the Docker engine at ${options.dockerHost ?? "/var/run/docker.sock"} does not answer (${error.message})`);
  })) as { Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean } };
  if (info.Swarm?.LocalNodeState !== "active" || !info.Swarm.ControlAvailable) {
    throw new Error(
      `RUNTIME=swarm: the Docker engine at ${options.dockerHost ?? "/var/run/docker.sock"} is not a swarm manager (swarm state: ${info.Swarm?.LocalNodeState ?? "unknown"}); run \`docker swarm init\` on it, or point DOCKER_HOST at a manager`,
    );
  }
  const builds = await createDockerDriver(options);
  const orchestrator = new SwarmOrchestrator(docker, {
    platformId: options.platformKey ?? platformId(options.dataDir),
    dataDir: options.dataDir,
    sharedDataDir: options.sharedDataDir,
    baseImage: () => ensureBaseImage(docker, { configured: options.baseImage, toolchains: options.toolchains, log: options.log }),
    registry: options.registry,
    stopGraceMs: options.stopGraceMs ?? 5000,
    startTimeoutMs: options.startTimeoutMs,
    restart: { delayMs: 1000, windowMs: 30_000 },
    pollMs: options.pollMs ?? 1000,
    onError: options.onError ?? ((error, message) => options.log?.(`${message}: ${(error as Error).message}`)),
  });
  const firewall = await setupSwarmFirewall(options.forward).then(
    () => true as const,
    (error: Error) => error.message,
  );
  const sandbox = swarmSandbox(builds.sandbox, options.registry, firewall);
  return {
    name: "swarm",
    orchestrator,
    sandbox,
    dataPath: builds.dataPath,
    appEndpoint: (service) => builds.appEndpoint(service),
    // One-off runs (and their terminals) are containers on this node, as builds are.
    terminals: builds.terminals,
    run: (spec) => builds.run(spec),
    // Built on this node (a manager) as the docker driver builds it; the orchestrator pushes it with the release.
    buildImage: (spec) => builds.buildImage!(spec),
    start: () => Promise.reject(new Error("RUNTIME=swarm runs apps as services: the engine rolls them out through the orchestrator")),
    list: () => [],
    reap: () => builds.reap(),
    removeRelease: (appKey, release) => builds.removeRelease?.(appKey, release) ?? Promise.resolve(),
    removeApp: (appKey) => builds.removeApp(appKey),
    async close() {
      orchestrator.close();
      await builds.close();
    },
  };
}

/** What differs for services: no no-new-privileges in the API's ContainerSpec, and their own networks. */
function swarmSandbox(report: SandboxReport, registry: string | null, firewall: true | string): SandboxReport {
  const layers = report.layers.map((layer) => {
    if (layer.name === "user")
      return { ...layer, detail: "uid 10001 in every task; no-new-privileges is NOT set on services (Engine API 1.41 has no such field: builds get it, tasks rely on the non-root user, no capabilities and no setuid file in Slipway's base image; an image built from a Dockerfile may hold setuid files, which then give uid 0 without capabilities)" };
    if (layer.name === "network")
      return {
        ...layer,
        enforced: layer.enforced && firewall === true,
        detail:
          firewall === true
            ? `tasks: one overlay network per app, the app's port published in host mode on its node; nftables (${SWARM_TABLE}): no task reaches another task through a node's published ports, nor this node's services (other nodes need the same table: README); builds: ${layer.detail}`
            : `the ${SWARM_TABLE} nftables table could not be set (${firewall}): a task could reach other apps' published ports and this node's services`,
      };
    if (layer.name === "filesystem") return { ...layer, detail: `${layer.detail}; an app with a data folder is pinned to this node${registry ? `; images from ${registry}` : ""}` };
    return layer;
  });
  return { driver: "swarm", layers };
}
