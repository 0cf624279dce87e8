// cgroup v1 groups: one per sandboxed process (below one per app), with memory, cpu and pids limits and a
// freezer to stop a whole tree at once (looping over cgroup.procs races a fork bomb: freeze first, then kill);
// cpuacct only counts the group's CPU time (an app's metrics).
import fs from "node:fs/promises";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { SandboxLimits } from "../types.ts";

export const CONTROLLERS = ["memory", "cpu", "cpuacct", "pids", "freezer"] as const;
export type Controller = (typeof CONTROLLERS)[number];
export type Mounts = Partial<Record<Controller, string>>;

const CPU_PERIOD_US = 100_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where each v1 controller is mounted on this machine (none on a pure cgroup v2 host). */
export function findMounts(mounts = readFileSync("/proc/self/mounts", "utf8")): Mounts {
  const found: Mounts = {};
  for (const line of mounts.split("\n")) {
    const [, dir, type, options] = line.split(" ");
    if (type !== "cgroup") continue;
    for (const controller of CONTROLLERS) if (options.split(",").includes(controller)) found[controller] ??= dir;
  }
  return found;
}

export class Cgroup {
  constructor(
    private readonly mounts: Mounts,
    /** Relative to each controller's mount, e.g. "slipway/12/p3". */
    readonly relPath: string,
  ) {}

  /** One entry per hierarchy: controllers mounted together (cpu,cpuacct) share a directory. */
  private dirs(): [Controller, string][] {
    const seen = new Set<string>();
    return Object.entries(this.mounts)
      .map(([controller, mount]): [Controller, string] => [controller as Controller, path.join(mount, this.relPath)])
      .filter(([, dir]) => !seen.has(dir) && seen.add(dir));
  }

  child(name: string): Cgroup {
    return new Cgroup(this.mounts, path.join(this.relPath, name));
  }

  async create(limits?: SandboxLimits): Promise<void> {
    for (const [, dir] of this.dirs()) await fs.mkdir(dir, { recursive: true });
    if (!limits) return;
    const set = (controller: Controller, file: string, value: number | string) =>
      this.mounts[controller] ? fs.writeFile(path.join(this.mounts[controller], this.relPath, file), String(value)) : undefined;
    await set("memory", "memory.limit_in_bytes", limits.memoryBytes);
    // Without this the limit would only push memory out to swap. Absent when the kernel has no swap accounting.
    await set("memory", "memory.memsw.limit_in_bytes", limits.memoryBytes)?.catch(() => {});
    await set("cpu", "cpu.cfs_period_us", CPU_PERIOD_US);
    await set("cpu", "cpu.cfs_quota_us", Math.max(1000, Math.round((limits.cpuPercent / 100) * CPU_PERIOD_US)));
    await set("pids", "pids.max", limits.pids);
  }

  /** Moves a process into the group (its later children follow it). */
  async join(pid: number): Promise<void> {
    for (const [, dir] of this.dirs()) await fs.writeFile(path.join(dir, "cgroup.procs"), String(pid));
  }

  async pids(): Promise<number[]> {
    const all = new Set<number>();
    for (const [, dir] of this.dirs()) {
      const text = await fs.readFile(path.join(dir, "cgroup.procs"), "utf8").catch(() => "");
      for (const pid of text.split("\n").filter(Boolean)) all.add(Number(pid));
    }
    return [...all];
  }

  /** How many times the kernel's OOM killer killed a process of this group. */
  async oomKills(): Promise<number> {
    if (!this.mounts.memory) return 0;
    const text = await fs.readFile(path.join(this.mounts.memory, this.relPath, "memory.oom_control"), "utf8").catch(() => "");
    return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
  }

  /**
   * The group's CPU time so far and its memory now, with its limit; null where a controller is missing. Read
   * synchronously: these files are made by the kernel on the spot, and a promise read costs ten times the CPU
   * (bench/hosting/metrics.ts samples 100 groups every 10 s).
   */
  async usage(): Promise<{ cpuNanos: number | null; memoryBytes: number | null; memoryLimitBytes: number | null }> {
    const read = (controller: Controller, file: string) => {
      const mount = this.mounts[controller];
      if (!mount) return null;
      try {
        return Number(readFileSync(path.join(mount, this.relPath, file), "utf8"));
      } catch {
        return null; // the group is gone (the instance exited)
      }
    };
    const [cpuNanos, memoryBytes, memoryLimitBytes] = [read("cpuacct", "cpuacct.usage"), read("memory", "memory.usage_in_bytes"), read("memory", "memory.limit_in_bytes")];
    // No limit reads as the largest page-aligned 64-bit value.
    return { cpuNanos, memoryBytes, memoryLimitBytes: memoryLimitBytes !== null && memoryLimitBytes < 2 ** 62 ? memoryLimitBytes : null };
  }

  /** SIGKILL to every process of the group and its subgroups, frozen first so none can fork meanwhile. */
  async killAll(): Promise<void> {
    for (const group of await this.subgroups()) await group.killOwn();
  }

  private async killOwn(): Promise<void> {
    const freezer = this.mounts.freezer && path.join(this.mounts.freezer, this.relPath, "freezer.state");
    if (freezer) await this.freeze(freezer);
    try {
      for (let round = 0; round < 50; round++) {
        const pids = await this.pids();
        if (pids.length === 0) return;
        for (const pid of pids) kill(pid);
        if (freezer) await fs.writeFile(freezer, "THAWED").catch(() => {}); // frozen tasks die once thawed
        await sleep(round < 10 ? 10 : 100);
      }
    } finally {
      if (freezer) await fs.writeFile(freezer, "THAWED").catch(() => {});
    }
  }

  private async freeze(stateFile: string): Promise<void> {
    await fs.writeFile(stateFile, "FROZEN").catch(() => {});
    for (let i = 0; i < 100; i++) {
      const state = (await fs.readFile(stateFile, "utf8").catch(() => "")).trim();
      if (state !== "FREEZING") return;
      await sleep(5);
    }
  }

  /** Kills what is left and removes the group and its subgroups from every hierarchy. */
  async remove(): Promise<void> {
    await this.killAll();
    for (const group of (await this.subgroups()).reverse()) {
      for (const [, dir] of group.dirs()) await rmdirWhenEmpty(dir);
    }
  }

  /** This group and every group below it, parents first. */
  private async subgroups(): Promise<Cgroup[]> {
    const names = new Set<string>();
    for (const [, dir] of this.dirs()) {
      const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) if (entry.isDirectory()) names.add(entry.name);
    }
    const below = await Promise.all([...names].map((name) => this.child(name).subgroups()));
    return [this, ...below.flat()];
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

// A group whose last task just died stays busy until the task is reaped.
async function rmdirWhenEmpty(dir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY" || attempt >= 100) throw error;
      await sleep(20);
    }
  }
}
