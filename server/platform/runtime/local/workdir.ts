// The release directory as the app's uid needs it. bwrap, already running as that uid, resolves the
// directory's path, so every folder above it must be searchable by others: folders inside DATA_DIR get the
// search bit for others only (x, never r: no listing, and the database and the rest stay unreadable); a folder outside
// it is the operator's, and is reported rather than changed.
import fs from "node:fs/promises";
import path from "node:path";
import { exec } from "./exec.ts";

export async function prepareWorkDir(workDir: string, options: { uid?: number; dataDir: string; chown: "always" | "if-not-owned" }): Promise<string> {
  const real = await fs.realpath(workDir).catch(() => {
    throw new Error(`the release directory ${workDir} does not exist`);
  });
  const stat = await fs.stat(real);
  if (!stat.isDirectory()) throw new Error(`the release directory ${workDir} is not a directory`);
  if (options.uid === undefined) return real;
  await grantSearch(real, await fs.realpath(options.dataDir));
  if (options.chown === "always" || stat.uid !== options.uid) {
    // -P -h: never follow a symlink the app may have left in its directory (to /etc/shadow, say).
    await exec(["/usr/bin/chown", "-R", "-P", "-h", "--", `${options.uid}:${options.uid}`, real], { timeoutMs: 120_000 });
  }
  return real;
}

async function grantSearch(dir: string, dataDir: string): Promise<void> {
  for (let folder = path.dirname(dir); ; folder = path.dirname(folder)) {
    const { mode } = await fs.stat(folder);
    if (!(mode & 0o001)) {
      const inside = folder === dataDir || folder.startsWith(dataDir + path.sep);
      if (!inside) {
        throw new Error(
          `app processes cannot reach ${dir}: ${folder} (mode ${(mode & 0o777).toString(8)}) is not searchable by other users; ` +
            "keep release directories under DATA_DIR or make that folder 0711",
        );
      }
      await fs.chmod(folder, (mode & 0o7777) | 0o001);
    }
    if (folder === path.dirname(folder)) return;
  }
}
