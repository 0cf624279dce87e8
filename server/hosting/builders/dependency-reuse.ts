// A redeploy with an unchanged dependency set reuses the previous release's installed dependencies (node_modules,
// a virtualenv, vendor/bundle) instead of installing them again. Each release records what its dependencies were
// installed from (DEPS_MARKER: a hash of the dependency files, the install command and the toolchain); the next
// build takes the folder over when its own hash matches. Its files are linked, not copied, unless a later build step
// writes into the folder: a write into a linked file would change the previous release too, which still serves and
// may be rolled back to. The walk never follows links (copy.ts), and any problem just means installing afresh.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { copyTreeNoFollow } from "./copy.ts";
import { readProjectFile, writeProjectFile } from "./files.ts";
import type { BuildContext } from "./types.ts";

export const DEPS_MARKER = ".slipway-deps";

/** What a release's dependency folder was installed from: the files' bytes, the command, the toolchain's identity. */
export function depsHash(inputs: Buffer | Buffer[], installArgv: string[], toolchain: unknown = [process.version, process.platform, process.arch]): string {
  const hash = createHash("sha256");
  for (const input of Array.isArray(inputs) ? inputs : [inputs]) hash.update(createHash("sha256").update(input).digest());
  return hash.update(JSON.stringify([installArgv, toolchain])).digest("hex");
}

/** Records (or, without a hash, clears) what this release's dependencies are installed from. */
export async function recordDeps(dir: string, hash: string | null): Promise<void> {
  if (hash) await writeProjectFile(dir, DEPS_MARKER, `${hash}\n`);
  else await fs.rm(path.join(dir, DEPS_MARKER), { recursive: true, force: true });
}

export interface Reuse {
  /** The folder of installed dependencies, relative to the release ("node_modules", ".venv"). */
  folder: string;
  hash: string;
  /** The dependency file(s) the hash covers, as the log names them ("package-lock.json"). */
  source: string;
  /** The install command a reuse skips, as the log names it ("npm ci"). */
  skipping: string;
  /**
   * A later build step writes into the folder (composer dump-autoload, npm run build's caches, pip installing the
   * project itself): its files are copied rather than linked, so that the previous release's stay its own.
   */
  writtenAfter?: boolean;
}

/**
 * Takes the dependency folder over from the previous release when it was installed from the same hash (logs why not
 * otherwise), and records the hash as what this release's dependencies are installed from, either way.
 */
export async function reuseDependencies(ctx: BuildContext, reuse: Reuse): Promise<boolean> {
  const reused = await takeOver(ctx, reuse);
  await recordDeps(ctx.dir, reuse.hash);
  return reused;
}

async function takeOver(ctx: BuildContext, reuse: Reuse): Promise<boolean> {
  if (!ctx.previousDir) return false;
  const previous = await previousHash(ctx.previousDir);
  if (previous !== reuse.hash) {
    const why = previous ? `${reuse.source} changed since the previous release` : `No reusable ${reuse.folder} in the previous release`;
    ctx.log(`${why}: installing dependencies.`);
    return false;
  }
  const target = path.join(ctx.dir, reuse.folder);
  if (!(await parentsAreFolders(ctx.dir, reuse.folder))) {
    ctx.log(`${path.dirname(reuse.folder)} is not a folder in this project: installing dependencies.`);
    return false;
  }
  try {
    await fs.rm(target, { recursive: true, force: true });
    const count = await copyTreeNoFollow(ctx.previousDir, reuse.folder, target, { link: !reuse.writtenAfter });
    const files = `${count.files} ${count.files === 1 ? "file" : "files"}`;
    ctx.log(`${reuse.source} is unchanged: reusing ${reuse.folder} from the previous release (${files}), skipping ${reuse.skipping}.`);
    return true;
  } catch (error) {
    await fs.rm(target, { recursive: true, force: true });
    ctx.log(`Could not reuse ${reuse.folder} from the previous release (${(error as Error).message}): installing dependencies.`);
    return false;
  }
}

/**
 * Whether every folder above `folder` (vendor of vendor/bundle) is a real folder in the new release, made when
 * missing: a link there (a git checkout may hold one) would lead the copy, made as root, out of the release. Nothing
 * runs in the new release yet, so the check holds until the copy.
 */
async function parentsAreFolders(dir: string, folder: string): Promise<boolean> {
  let at = dir;
  for (const name of folder.split("/").filter(Boolean).slice(0, -1)) {
    at = path.join(at, name);
    const stat = await fs.lstat(at).catch(() => null);
    if (!stat) await fs.mkdir(at, { mode: 0o755 });
    else if (!stat.isDirectory()) return false;
  }
  return true;
}

async function previousHash(previousDir: string): Promise<string | null> {
  try {
    return (await readProjectFile(previousDir, DEPS_MARKER, 1024))?.toString("utf8").trim() || null;
  } catch {
    return null; // a link, a folder or a FIFO where the marker should be: the app tampered with it
  }
}
