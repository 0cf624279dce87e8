// Builders run in the platform process (as root) and read files the user controls. A git checkout may hold
// symlinks (package.json -> /proc/self/environ), and a running app may plant links and FIFOs in its own
// release directory, so these reads never follow a link and never block on a FIFO.
import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { BuildError } from "./errors.ts";

/** Opens a regular file without following a link in its last component; O_NONBLOCK so a FIFO cannot hang us. */
export const READ_NOFOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
export const DIR_NOFOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A regular file at the top of the project, or null when there is none. Refuses links and non-files by name. */
export async function readProjectFile(dir: string, name: string, maxBytes: number): Promise<Buffer | null> {
  let handle;
  try {
    handle = await fs.open(path.join(dir, name), READ_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw notAFile(name, "is a symbolic link");
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notAFile(name, "is not a regular file");
    if (stat.size > maxBytes) throw new BuildError(`${name} is larger than ${maxBytes} bytes; is it really a ${name}?`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** UTF-8 text without the byte-order mark some Windows editors write. */
export function readText(contents: Buffer): string {
  return contents.toString("utf8").replace(/^\uFEFF/, "");
}

/** Whether the project has a regular file of this name at its top (a link of that name is an error). */
export async function hasProjectFile(dir: string, name: string): Promise<boolean> {
  const stat = await fs.lstat(path.join(dir, name)).catch(() => null);
  if (!stat) return false;
  if (stat.isSymbolicLink()) throw notAFile(name, "is a symbolic link");
  return stat.isFile();
}

/** Replaces a file the platform writes into the release, removing first whatever the user put there (maybe a link). */
export async function writeProjectFile(dir: string, name: string, contents: string): Promise<void> {
  const file = path.join(dir, name);
  await fs.rm(file, { recursive: true, force: true });
  await fs.writeFile(file, contents, { flag: "wx", mode: 0o644 });
}

function notAFile(name: string, problem: string): BuildError {
  return new BuildError(`${name} ${problem}; Slipway reads build files only from regular files in the project.`);
}
