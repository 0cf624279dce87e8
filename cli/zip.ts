// Zips a folder for `slipway deploy` into a temp file: every file but those .gitignore and .slipwayignore
// (at the folder's root) exclude, and never node_modules or .git. Symbolic links are skipped (the server
// refuses them), so the upload holds exactly what the build would see.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ignore from "ignore";
import yazl from "yazl";
import { CliError } from "./output.ts";

const ALWAYS_SKIPPED = ["node_modules/", ".git/", "slipway.json"];

export interface ZipResult {
  file: string;
  files: number;
  bytes: number;
  cleanup(): void;
}

function rules(dir: string) {
  const rules = ignore().add(ALWAYS_SKIPPED);
  for (const name of [".gitignore", ".slipwayignore"]) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) rules.add(fs.readFileSync(file, "utf8"));
  }
  return rules;
}

/** The relative paths (with "/") that would be deployed, sorted. */
export function listFiles(dir: string): string[] {
  const ignored = rules(dir);
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!ignored.ignores(`${name}/`)) walk(name);
      } else if (entry.isFile() && !ignored.ignores(name)) {
        files.push(name);
      }
    }
  };
  walk("");
  return files.sort();
}

export async function zipFolder(dir: string): Promise<ZipResult> {
  const root = path.resolve(dir);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new CliError(`${dir} is not a folder.`);
  const files = listFiles(root);
  if (!files.length) throw new CliError(`Nothing to deploy in ${root}: every file is ignored or the folder is empty.`);
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-deploy-"));
  const file = path.join(tempDir, "app.zip");
  const zip = new yazl.ZipFile();
  for (const name of files) {
    const full = path.join(root, name);
    zip.addFile(full, name, { mode: fs.statSync(full).mode });
  }
  zip.end();
  await new Promise<void>((resolve, reject) => {
    const out = fs.createWriteStream(file, { mode: 0o600 });
    zip.outputStream.on("error", reject).pipe(out).on("finish", resolve).on("error", reject);
  });
  return { file, files: files.length, bytes: fs.statSync(file).size, cleanup: () => fs.rmSync(tempDir, { recursive: true, force: true }) };
}
