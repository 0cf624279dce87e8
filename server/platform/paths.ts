import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(from: string): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/** The folder holding package.json, whether running from server/ (tsx) or dist/server/ (compiled). */
export const projectRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));
