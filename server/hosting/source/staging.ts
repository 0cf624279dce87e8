// Every source builds a release the same way: into a fresh temporary directory beside the destination,
// renamed into place only once complete, so a failure never leaves a partial release behind.
import fs from "node:fs/promises";
import path from "node:path";

export interface StageOptions {
  /** Use a single top-level folder wrapping everything as the root (GitHub's "Download ZIP" and most zip tools make one). */
  unwrap?: boolean;
}

/**
 * Runs fill() on an empty temporary directory, then moves what it wrote to destDir; removes the temp dir on any
 * failure. Returns the name of the folder it unwrapped, if it did.
 */
export async function stageInto(destDir: string, fill: (dir: string) => Promise<void>, options: StageOptions = {}): Promise<string | undefined> {
  const parent = path.dirname(destDir);
  await fs.mkdir(parent, { recursive: true });
  if (await exists(destDir)) throw new Error(`release directory ${destDir} already exists`);
  const temp = await fs.mkdtemp(path.join(parent, `.${path.basename(destDir)}.partial-`));
  try {
    await fill(temp);
    const folder = options.unwrap ? await singleFolder(temp) : undefined;
    await fs.rename(folder ? path.join(temp, folder) : temp, destDir);
    return folder;
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

/** The name of the only top-level entry when it is a folder. */
async function singleFolder(dir: string): Promise<string | undefined> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  return entries.length === 1 && entries[0].isDirectory() ? entries[0].name : undefined;
}

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}
