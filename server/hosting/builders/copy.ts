// Copies a tree the user controls (the previous release's node_modules, while that release is still serving)
// without ever following a symlink, even one swapped in while we copy. Each folder is opened by handle and its
// children are reached through /proc/self/fd/<handle>/<name> (Linux's equivalent of openat) with O_NOFOLLOW:
// replacing a folder by a link after we listed it makes the open fail instead of leading us elsewhere.
// Links are recreated verbatim (never resolved), FIFOs, sockets and devices are skipped. With `link`, regular files get
// a second name (a hard link) in the new tree rather than a copy of their bytes, a few milliseconds per thousand
// files: only for a tree nobody writes into afterwards, since both names are the same file. Files with setuid or
// setgid bits are always copied, with their permission bits only (the copy runs as root).
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
export async function copyTreeNoFollow(root: string, relative: string, dest: string, options: { link: boolean }): Promise<CopyCount> {
  const walk: Walk = { count: { files: 0, links: 0, skipped: 0 }, files: new Slots(PARALLEL_FILES), openFolders: 1, link: options.link };
  let dir = await fs.open(root, DIR_NOFOLLOW);
  try {
    for (const name of relative.split("/").filter(Boolean)) {
      const next = await fs.open(`/proc/self/fd/${dir.fd}/${name}`, DIR_NOFOLLOW);
      await dir.close();
      dir = next;
    }
    await copyDir(dir, dest, walk);
  } finally {
    await dir.close();
  }
  return walk.count;
}

/** How many files are linked or copied at once: enough to keep the thread pool busy. */
const PARALLEL_FILES = 32;
/** About how many folder handles may be open at once (a few more, one per level of depth, to always go on). */
const OPEN_FOLDERS = 64;

interface Walk {
  count: CopyCount;
  files: Slots;
  /** Folder handles open now. */
  openFolders: number;
  /** Regular files are linked rather than copied. */
  link: boolean;
}

async function copyDir(dir: FileHandle, dest: string, walk: Walk): Promise<void> {
  const { count } = walk;
  const base = `/proc/self/fd/${dir.fd}`;
  const [entries] = await Promise.all([fs.readdir(base, { withFileTypes: true }), fs.mkdir(dest, { mode: 0o755 })]);
  const others = Promise.all(
    entries.map(async (entry) => {
      const from = `${base}/${entry.name}`;
      const to = path.join(dest, entry.name);
      if (entry.isFile()) {
        if (await walk.files.run(() => (walk.link ? linkOrCopyFile(from, to) : copyFile(from, to)))) count.files++;
        else count.skipped++;
      } else if (entry.isSymbolicLink()) {
        await fs.symlink(await fs.readlink(from), to);
        count.links++;
      } else if (!entry.isDirectory()) {
        count.skipped++;
      }
    }),
  );
  try {
    const folders = entries.filter((e) => e.isDirectory());
    // Sub-folders in batches as large as the handle budget allows, and at least one: never waits, so never deadlocks.
    while (folders.length) {
      const batch = folders.splice(0, Math.max(1, OPEN_FOLDERS - walk.openFolders));
      await Promise.all(batch.map((entry) => copySubDir(base, entry.name, path.join(dest, entry.name), walk)));
    }
  } finally {
    await others;
  }
}

/** Opened without following: a folder swapped for a link since the listing fails here instead of leading out. */
async function copySubDir(base: string, name: string, dest: string, walk: Walk): Promise<void> {
  const child = await fs.open(`${base}/${name}`, DIR_NOFOLLOW);
  walk.openFolders++;
  try {
    await copyDir(child, dest, walk);
  } finally {
    walk.openFolders--;
    await child.close();
  }
}

/**
 * A second name for the file, in the same file system: as fast as a rename, and the bytes, mode and modification time
 * are the file's own. link(2) never follows a link in its last component, so a file swapped for a link since the
 * listing becomes a copy of that link, never of what it points to. Files with setuid or setgid bits, and any file link(2)
 * refuses (another file system), are copied instead.
 */
async function linkOrCopyFile(from: string, to: string): Promise<boolean> {
  const stat = await fs.lstat(from);
  if (!stat.isFile()) return false;
  if (!(stat.mode & 0o6000)) {
    try {
      await fs.link(from, to);
      return true;
    } catch (error) {
      if (!["EXDEV", "EPERM", "EMLINK"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    }
  }
  return copyFile(from, to);
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
