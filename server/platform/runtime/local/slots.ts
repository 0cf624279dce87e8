// Slots: what each app is allocated on this machine (its uid, address pair, namespace and cgroup names all
// derive from one number). Several platforms run side by side (each with its own DATA_DIR), so a slot is
// claimed by creating its file with O_EXCL in a host-wide folder: atomic in the kernel, no two processes
// can hold the same slot. The file names its owner so that reap() finds what a dead platform left behind.
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

export interface SlotOwner {
  /** The platform's DATA_DIR: a later platform on the same DATA_DIR reaps the slot. */
  dataDir: string;
  appKey: string;
  pid: number;
  /** The owner's start time (clock ticks after boot), so that a reused pid is not mistaken for it. */
  startTime: number;
}

export interface Claim {
  slot: number;
  owner: SlotOwner;
}

export class SlotRegistry {
  constructor(
    readonly dir: string,
    private readonly size: number,
    private readonly self: Omit<SlotOwner, "appKey">,
  ) {}

  async claim(appKey: string): Promise<number> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const owner: SlotOwner = { ...this.self, appKey };
    for (let slot = 0; slot < this.size; slot++) {
      try {
        await fs.writeFile(this.file(slot), JSON.stringify(owner), { flag: "wx", mode: 0o600 });
        return slot;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    throw new Error(`all ${this.size} app slots of this machine are taken (see ${this.dir})`);
  }

  /**
   * Makes this platform the owner of a slot that an earlier platform on this DATA_DIR claimed for the app (its
   * instances outlived it, and this platform adopts them). False when the claim is another's.
   */
  async takeOver(slot: number, appKey: string): Promise<boolean> {
    const owner = await fs.readFile(this.file(slot), "utf8").then((text) => JSON.parse(text) as SlotOwner, () => null);
    if (!owner || owner.appKey !== appKey || owner.dataDir !== this.self.dataDir) return false;
    const ours = owner.pid === this.self.pid && owner.startTime === this.self.startTime;
    if (!ours && isRunning(owner.pid, owner.startTime)) return false;
    const temporary = `${this.file(slot)}.${this.self.pid}.tmp`;
    await fs.writeFile(temporary, JSON.stringify({ ...this.self, appKey }), { mode: 0o600 });
    await fs.rename(temporary, this.file(slot));
    return true;
  }

  async release(slot: number): Promise<void> {
    await fs.rm(this.file(slot), { force: true });
  }

  async list(): Promise<Claim[]> {
    const names = await fs.readdir(this.dir).catch(() => []);
    const claims: Claim[] = [];
    for (const name of names.filter((n) => /^\d+$/.test(n))) {
      try {
        claims.push({ slot: Number(name), owner: JSON.parse(await fs.readFile(this.file(Number(name)), "utf8")) as SlotOwner });
      } catch {
        // being written by its claimer, or removed meanwhile
      }
    }
    return claims;
  }

  /**
   * The claims an earlier platform process left behind: those of this DATA_DIR, and those whose DATA_DIR
   * no longer exists; never a claim whose owner is still running.
   */
  async abandoned(): Promise<Claim[]> {
    const claims = await this.list();
    const result: Claim[] = [];
    for (const claim of claims) {
      const { owner } = claim;
      if (owner.pid === this.self.pid && owner.startTime === this.self.startTime) continue;
      if (isRunning(owner.pid, owner.startTime)) continue;
      const ours = owner.dataDir === this.self.dataDir;
      if (ours || !(await exists(owner.dataDir))) result.push(claim);
    }
    return result;
  }

  private file(slot: number): string {
    return path.join(this.dir, String(slot));
  }
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot. */
export function processStartTime(pid: number | "self"): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
  } catch {
    return undefined;
  }
}

function isRunning(pid: number, startTime: number): boolean {
  return processStartTime(pid) === startTime;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
