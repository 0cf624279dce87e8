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

/** Copies the directory src (refused if it is a link) to dest, which must not exist. */
export async function copyTreeNoFollow(src: string, dest: string): Promise<CopyCount> {
  const count: CopyCount = { files: 0, links: 0, skipped: 0 };
  const root = await fs.open(src, DIR_NOFOLLOW);
  try {
    await copyDir(root, dest, count);
  } finally {
    await root.close();
  }
  return count;
}

async function copyDir(dir: FileHandle, dest: string, count: CopyCount): Promise<void> {
  await fs.mkdir(dest, { mode: 0o755 });
  const base = `/proc/self/fd/${dir.fd}`;
  for (const name of await fs.readdir(base)) {
    const from = `${base}/${name}`;
    const to = path.join(dest, name);
    const stat = await fs.lstat(from);
    if (stat.isSymbolicLink()) {
      await fs.symlink(await fs.readlink(from), to);
      count.links++;
    } else if (stat.isDirectory()) {
      const child = await fs.open(from, DIR_NOFOLLOW);
      try {
        await copyDir(child, to, count);
      } finally {
        await child.close();
      }
    } else if (stat.isFile()) {
      if (await copyFile(from, to)) count.files++;
      else count.skipped++;
    } else {
      count.skipped++;
    }
  }
}

/** Copies through an open handle, so what is copied is the regular file we checked, not what the name points to now. */
async function copyFile(from: string, to: string): Promise<boolean> {
  const handle = await fs.open(from, READ_NOFOLLOW);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return false;
    await fs.copyFile(`/proc/self/fd/${handle.fd}`, to, constants.COPYFILE_EXCL);
    await fs.chmod(to, stat.mode & 0o777);
    return true;
  } finally {
    await handle.close();
  }
}
