#!/usr/bin/env node
// The `slipway` command. Runs the compiled CLI (dist/cli/main.js, from `npm run build:server`) when it is there
// and not older than the TypeScript sources next to it; otherwise, in a checkout, the sources through tsx.
// Compiled JavaScript keeps start-up fast (no TypeScript loader).
import fs from "node:fs";

const root = new URL("../", import.meta.url);
const compiled = new URL("dist/cli/main.js", root);
const sources = new URL("cli/", root);

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = new URL(entry.name + (entry.isDirectory() ? "/" : ""), dir);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function useCompiled() {
  if (!fs.existsSync(compiled)) return false;
  if (!fs.existsSync(sources)) return true;
  return fs.statSync(compiled).mtimeMs >= newestSource(sources);
}

if (useCompiled()) {
  await import(compiled.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("cli/main.ts", root).href);
}
