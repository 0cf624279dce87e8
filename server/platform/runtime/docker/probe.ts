// What the docker driver enforces on this engine, from the engine's own report (docker info) and whether our
// nftables table could be set; every container gets the same hardened configuration (container.ts).
import type { SandboxLayer, SandboxReport } from "../types.ts";
import type { Docker } from "./client.ts";
import { APP_USER } from "./base-image.ts";

export interface DockerEnforcement {
  report: SandboxReport;
  /** The nftables table is in place (the platform runs as root on the Docker host). */
  firewall: boolean;
}

export async function probeDocker(docker: Docker, firewall: true | string, driver = "docker"): Promise<DockerEnforcement> {
  const info = (await docker.info()) as Record<string, unknown>;
  const has = (key: string) => info[key] !== false;
  const layer = (name: string, enforced: boolean, detail: string, otherwise: string): SandboxLayer => ({ name, enforced, detail: enforced ? detail : otherwise });
  const engine = `Docker ${String(info.ServerVersion ?? "?")} (${String(info.Driver ?? "?")}, cgroup ${String(info.CgroupVersion ?? "1")})`;
  const layers: SandboxLayer[] = [
    layer("filesystem", true, `${engine}: read-only root filesystem from the release image, a 64 MB tmpfs at /tmp, the app's data at /data; builds see only their release at /app`, ""),
    layer("user", true, `uid ${APP_USER.uid} in every container, no-new-privileges; a Dockerfile's RUN steps run as its USER (root by default)`, ""),
    layer("capabilities", true, "every capability dropped (CapDrop ALL), no Docker socket; a Dockerfile's RUN steps have the engine's default set", ""),
    layer("memory", has("MemoryLimit"), "the engine's memory cgroup (swap included)", "the engine reports no memory limit support"),
    layer("cpu", has("CpuCfsQuota"), "CPU quota (NanoCpus)", "the engine reports no CPU quota support"),
    layer("pids", has("PidsLimit"), "pids limit", "the engine reports no pids limit support"),
    layer(
      "network",
      firewall === true,
      "one bridge network per app (ICC off); nftables: no host service, no other app, no link-local or loopback address",
      `the nftables table could not be set: ${firewall === true ? "" : firewall}`,
    ),
  ];
  return { report: { driver, layers }, firewall: firewall === true };
}
