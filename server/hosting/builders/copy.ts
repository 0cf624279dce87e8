// Copies a tree the user controls (the previous release's node_modules, while that release is still serving)
// without ever following a symlink, even one swapped in while we copy. Each folder is opened by handle and its
// children are reached through /proc/self/fd/<handle>/<name> (Linux's equivalent of openat) with O_NOFOLLOW:
// replacing a folder by a link after we listed it makes the open fail instead of leading us elsewhere.
// Links are recreated verbatim (never resolved), FIFOs, sockets and devices are skipped, and files keep only
// their permission bits (no setuid: the copy runs as root).
import { constants } from "node:fs";
import fs, { type FileHandle } from "node:fs/promises";
import path from "node:path";
import { DIR_NOFOLLOW, READ_NOFOLLOW } from "./files.ts";

export interface CopyCount {
  files: number;
  links: number;
  skipped: number;
}

/**
 * Copies the directory `relative` below `root` to dest, which must not exist. No part of `relative` may be a link:
 * each folder on the way is opened by handle without following one, so a running app cannot redirect the copy by
 * swapping a folder of its release for a link.
 */
export async function copyTreeNoFollow(root: string, relative: string, dest: string): Promise<CopyCount> {
  const count: CopyCount = { files: 0, links: 0, skipped: 0 };
  let dir = await fs.open(root, DIR_NOFOLLOW);
  try {
    for (const name of relative.split("/").filter(Boolean)) {
      const next = await fs.open(`/proc/self/fd/${dir.fd}/${name}`, DIR_NOFOLLOW);
      await dir.close();
      dir = next;
    }
    await copyDir(dir, dest, count);
  } finally {
    await dir.close();
  }
  return count;
}

/** How many files are copied at once: enough to keep the thread pool busy, few enough to stay far from the fd limit. */
const PARALLEL_FILES = 32;

async function copyDir(dir: FileHandle, dest: string, count: CopyCount, slots = new Slots(PARALLEL_FILES)): Promise<void> {
  await fs.mkdir(dest, { mode: 0o755 });
  const base = `/proc/self/fd/${dir.fd}`;
  const entries = await fs.readdir(base, { withFileTypes: true });
  // Files in parallel; folders one after the other, so that at most one handle per level of depth is open.
  const files = Promise.all(
    entries.filter((e) => e.isFile()).map(async (entry) => {
      if (await slots.run(() => copyFile(`${base}/${entry.name}`, path.join(dest, entry.name)))) count.files++;
      else count.skipped++;
    }),
  );
  try {
    for (const entry of entries) {
      const from = `${base}/${entry.name}`;
      const to = path.join(dest, entry.name);
      if (entry.isSymbolicLink()) {
        await fs.symlink(await fs.readlink(from), to);
        count.links++;
      } else if (entry.isDirectory()) {
        // Opened without following: a folder swapped for a link since the listing fails here instead of leading out.
        const child = await fs.open(from, DIR_NOFOLLOW);
        try {
          await copyDir(child, to, count, slots);
        } finally {
          await child.close();
        }
      } else if (!entry.isFile()) {
        count.skipped++;
      }
    }
  } finally {
    await files;
  }
}

/**
 * Copies through an open handle, so what is copied is the regular file we checked, not what the name points to now.
 * The modification time is kept: Python checks its bytecode caches (__pycache__) against it, and a copy that changed
 * it would make every import of the new release compile again.
 */
async function copyFile(from: string, to: string): Promise<boolean> {
  const handle = await fs.open(from, READ_NOFOLLOW);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return false;
    await fs.copyFile(`/proc/self/fd/${handle.fd}`, to, constants.COPYFILE_EXCL);
    // copyFile gives the copy the source's mode: setuid, setgid and sticky bits go (the copy runs as root).
    if (stat.mode & 0o7000) await fs.chmod(to, stat.mode & 0o777);
    await fs.utimes(to, stat.atime, stat.mtime);
    return true;
  } finally {
    await handle.close();
  }
}

/** At most `size` tasks at once. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free === 0) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.free--;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
