// Which app a command works on: --app, else the `slipway.json` link file ({ "app": "<slug>" }) in the current
// folder or the nearest one above it, written by `apps:create` and `link` (like Heroku's git remote).
import fs from "node:fs";
import path from "node:path";
import { CliError } from "./output.ts";

export const LINK_FILE = "slipway.json";

export function findLink(from = process.cwd()): { app: string; file: string } | null {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const file = path.join(dir, LINK_FILE);
    if (fs.existsSync(file)) {
      try {
        const parsed = JSON.parse(fs.readFileSync(file, "utf8"));
        if (typeof parsed?.app === "string" && parsed.app) return { app: parsed.app, file };
      } catch {
        throw new CliError(`${file} is not valid JSON; it should look like {"app": "my-app"}.`);
      }
    }
    if (path.dirname(dir) === dir) return null;
  }
}

export function resolveApp(option: string | undefined): string {
  if (option) return option;
  const link = findLink();
  if (link) return link.app;
  throw new CliError(`Which app? Give --app <slug>, or run \`slipway link <slug>\` in this folder to write ${LINK_FILE}.`);
}

export function writeLink(slug: string, dir = process.cwd()): string {
  const file = path.join(dir, LINK_FILE);
  let existing: Record<string, unknown> = {};
  try {
    existing = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    // none yet, or unreadable: replaced
  }
  fs.writeFileSync(file, `${JSON.stringify({ ...existing, app: slug }, null, 2)}\n`);
  return file;
}
