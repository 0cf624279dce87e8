// What this machine lets the local driver enforce, found by trying it once at boot; the report names each
// layer and says exactly what is enforced or why not.
import { access, constants, mkdir } from "node:fs/promises";
import path from "node:path";
import type { SandboxLayer, SandboxReport } from "../types.ts";
import { BWRAP, bwrapOptions, privilegeDropArgv } from "./bwrap.ts";
import { CONTROLLERS, findMounts, type Mounts } from "./cgroups.ts";
import { exec } from "./exec.ts";
import { APP_RANGE, setupHostNetwork } from "./network.ts";

export interface Enforcement {
  root: boolean;
  bwrap: boolean;
  /** A uid per app (needs root). */
  uids: boolean;
  /** The v1 controllers usable for app groups, mounted where. */
  cgroups: Mounts;
  network: boolean;
  report: SandboxReport;
}

export interface ProbeOptions {
  uidBase: number;
  cgroupParent: string;
}

export async function probe(options: ProbeOptions): Promise<Enforcement> {
  const root = process.getuid?.() === 0;
  const uids = root && (await executable("/usr/bin/setpriv"));
  const bwrap = await tryBwrap(uids ? options.uidBase : undefined);
  const cgroups = root ? await usableCgroups(options.cgroupParent) : {};
  const network = root ? await tryNetwork() : "the platform does not run as root";
  const enforcement = { root, bwrap: bwrap === true, uids, cgroups, network: network === true };
  return { ...enforcement, report: { driver: "local", layers: layers(enforcement, { bwrap, network }, options) } };
}

function layers(
  e: Omit<Enforcement, "report">,
  why: { bwrap: true | string; network: true | string },
  options: ProbeOptions,
): SandboxLayer[] {
  const layer = (name: string, enforced: boolean, detail: string, otherwise: string): SandboxLayer => ({
    name,
    enforced,
    detail: enforced ? detail : otherwise,
  });
  const noBwrap = `bubblewrap unusable: ${why.bwrap}`;
  const cgroup = (controller: keyof Mounts, detail: string) =>
    layer(controller, Boolean(e.cgroups[controller]), `cgroup v1 ${detail}`, `no usable cgroup v1 "${controller}" controller`);
  return [
    layer("filesystem", e.bwrap, "bubblewrap: read-only /usr and a few /etc files; writable: the release directory at /app, a private /tmp and, for a running app, its own data folder at /data; nothing else of the host", noBwrap),
    layer("user", e.uids, `one uid per app (${options.uidBase} + its slot), dropped with setpriv before bubblewrap, no new privileges`, e.root ? "setpriv is missing" : "the platform does not run as root: apps run as its own user"),
    layer("capabilities", e.bwrap, "none: bubblewrap runs unprivileged in a new user namespace (bounding set empty, nested user namespaces disabled)", noBwrap),
    layer("processes", e.bwrap, "own pid, ipc, uts and cgroup namespaces, a new session; killed with the platform", noBwrap),
    cgroup("memory", "memory.limit_in_bytes and memsw: past the limit the kernel kills the app (OOM)"),
    cgroup("cpu", "cfs quota: the app's share of one core"),
    cgroup("pids", "pids.max: processes and threads"),
    cgroup("freezer", "freezer: a group is frozen, then killed, so that no process forks meanwhile"),
    layer(
      "network",
      e.network,
      `a network namespace per app (10.201.0.0/${APP_RANGE.prefix}), nftables table inet slipway: no host service and no other app reachable; the outside through NAT`,
      `no network isolation (${why.network}): apps listen on 127.0.0.1 and reach every host service`,
    ),
  ];
}

async function executable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** Runs `true` in a sandbox built the way apps are (minus the release bind). */
async function tryBwrap(uid: number | undefined): Promise<true | string> {
  if (!(await executable(BWRAP))) return `${BWRAP} is missing (apt-get install bubblewrap)`;
  const options = bwrapOptions({ workDir: "/tmp", argv: ["/usr/bin/true"], env: {} });
  try {
    await exec([...privilegeDropArgv({ uid }), BWRAP, ...options, "--", "/usr/bin/true"]);
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

async function usableCgroups(parent: string): Promise<Mounts> {
  const usable: Mounts = {};
  const mounts = findMounts();
  for (const controller of CONTROLLERS) {
    const mount = mounts[controller];
    if (!mount) continue;
    try {
      await mkdir(path.join(mount, parent), { recursive: true });
      usable[controller] = mount;
    } catch {
      // read-only or not ours
    }
  }
  return usable;
}

async function tryNetwork(): Promise<true | string> {
  for (const tool of ["/usr/sbin/ip", "/usr/sbin/nft", "/usr/bin/nsenter"]) {
    if (!(await executable(tool))) return `${tool} is missing (apt-get install iproute2 nftables util-linux)`;
  }
  try {
    await setupHostNetwork();
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}
