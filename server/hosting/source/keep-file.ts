// Moves a staged file to where it is kept (a rename, or a copy across filesystems), creating its folder.
import fs from "node:fs/promises";
import path from "node:path";

export async function keepFile(from: string, to: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true, mode: 0o700 });
  try {
    await fs.rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    await fs.copyFile(from, to);
  }
}
