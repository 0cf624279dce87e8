// Tar streams made in-process (tar-stream), the build contexts sent to the Engine API. Paths inside are relative
// and normalised; symlinks are stored as links, never followed: nothing of the host outside the given folders ever
// goes into an image. A link that leads out of the tree it was found in is left out, unless the tree becomes a
// container's file system where the link means the container's own file (a virtualenv's bin/python → /usr/bin/python3.11).
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import tar from "tar-stream";

export type Pack = tar.Pack;

export interface Owner {
  uid: number;
  gid: number;
}

export function createPack(): Pack {
  return tar.pack();
}

export function addText(pack: Pack, name: string, text: string, mode = 0o644, owner: Owner = { uid: 0, gid: 0 }): Promise<void> {
  return new Promise((resolve, reject) => pack.entry({ name, mode, ...owner }, text, (error) => (error ? reject(error) : resolve())));
}

export function addDirectory(pack: Pack, name: string, mode = 0o755, owner: Owner = { uid: 0, gid: 0 }): Promise<void> {
  return new Promise((resolve, reject) => pack.entry({ name, type: "directory", mode, ...owner }, (error) => (error ? reject(error) : resolve())));
}

export function addSymlink(pack: Pack, name: string, target: string, owner: Owner = { uid: 0, gid: 0 }): Promise<void> {
  return new Promise((resolve, reject) => pack.entry({ name, type: "symlink", linkname: target, mode: 0o777, ...owner }, (error) => (error ? reject(error) : resolve())));
}

/** One regular file of the host, streamed (the node binary is ~100 MB); never setuid or setgid in an image of Slipway's. */
export async function addFile(pack: Pack, name: string, source: string, owner: Owner = { uid: 0, gid: 0 }, mode?: number): Promise<void> {
  const stat = await fs.stat(source);
  const entry = pack.entry({ name, size: stat.size, mode: mode ?? stat.mode & 0o1777, mtime: stat.mtime, ...owner });
  await pipeline(createReadStream(source), entry);
}

/**
 * A whole folder of the host below `prefix`: folders, regular files, and symlinks whose target stays inside `root`
 * (checked lexically from the link's own folder; absolute targets are left out). Sockets, devices and FIFOs are
 * skipped. `root` defaults to the folder itself; `include` (given the path below `root`) leaves entries out.
 */
export async function addTree(
  pack: Pack,
  prefix: string,
  dir: string,
  options: {
    owner?: Owner;
    root?: string;
    /** Keep links whatever they point at (they are resolved in the container, never here). */
    anyLinks?: boolean;
    skipped?: (file: string) => void;
    include?: (name: string, isDirectory: boolean) => boolean;
  } = {},
): Promise<void> {
  const root = options.root ?? dir;
  const owner = options.owner ?? { uid: 0, gid: 0 };
  const entries = await fs.readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    const relative = path.relative(root, full).split(path.sep).join("/");
    const name = path.posix.join(prefix, relative);
    if (options.include && !options.include(relative, entry.isDirectory())) continue;
    if (entry.isDirectory()) {
      const { mode } = await fs.lstat(full);
      await addDirectory(pack, name, mode & 0o7777, owner);
      await addTree(pack, prefix, full, { ...options, root });
    } else if (entry.isFile()) {
      await addFile(pack, name, full, owner);
    } else if (entry.isSymbolicLink()) {
      const target = await fs.readlink(full);
      const resolved = path.resolve(path.dirname(full), target);
      const inside = !path.isAbsolute(target) && (resolved === root || resolved.startsWith(root + path.sep));
      if (inside || options.anyLinks) await addSymlink(pack, name, target, owner);
      else options.skipped?.(path.relative(root, full));
    }
  }
}
