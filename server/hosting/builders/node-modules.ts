// A redeploy with an unchanged dependency set reuses the previous release's node_modules instead of running
// npm ci again. Each release records what its node_modules was installed from (DEPS_MARKER: a hash of the
// lockfile, the install command and the Node version); the next build copies node_modules over when its own
// hash matches. The copy never follows links (copy.ts), and any problem just means installing afresh.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { copyTreeNoFollow } from "./copy.ts";
import { readProjectFile, writeProjectFile } from "./files.ts";
import type { BuildContext } from "./types.ts";

export const DEPS_MARKER = ".slipway-deps";

export function depsHash(lockfile: Buffer, installArgv: string[]): string {
  return createHash("sha256")
    .update(lockfile)
    .update(JSON.stringify([installArgv, process.version, process.platform, process.arch]))
    .digest("hex");
}

/** Records (or, without a hash, clears) what this release's node_modules is installed from. */
export async function recordDeps(dir: string, hash: string | null): Promise<void> {
  if (hash) await writeProjectFile(dir, DEPS_MARKER, `${hash}\n`);
  else await fs.rm(path.join(dir, DEPS_MARKER), { recursive: true, force: true });
}

/** Copies node_modules from the previous release when it was installed from the same hash; logs why not otherwise. */
export async function reuseNodeModules(ctx: BuildContext, hash: string, lockfileName: string): Promise<boolean> {
  if (!ctx.previousDir) return false;
  const previous = await previousHash(ctx.previousDir);
  if (previous !== hash) {
    const why = previous ? `${lockfileName} changed since the previous release` : "No reusable node_modules in the previous release";
    ctx.log(`${why}: installing dependencies.`);
    return false;
  }
  const target = path.join(ctx.dir, "node_modules");
  try {
    await fs.rm(target, { recursive: true, force: true });
    const count = await copyTreeNoFollow(path.join(ctx.previousDir, "node_modules"), target);
    const files = `${count.files} ${count.files === 1 ? "file" : "files"}`;
    ctx.log(`${lockfileName} is unchanged: reusing node_modules from the previous release (${files}), skipping npm ci.`);
    return true;
  } catch (error) {
    await fs.rm(target, { recursive: true, force: true });
    ctx.log(`Could not reuse node_modules from the previous release (${(error as Error).message}): installing dependencies.`);
    return false;
  }
}

async function previousHash(previousDir: string): Promise<string | null> {
  try {
    return (await readProjectFile(previousDir, DEPS_MARKER, 1024))?.toString("utf8").trim() || null;
  } catch {
    return null; // a link, a folder or a FIFO where the marker should be: the app tampered with it
  }
}
