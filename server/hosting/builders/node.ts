// Node projects (a package.json at the top):
// - dependencies: `npm ci` with a lockfile (npm-shrinkwrap.json or package-lock.json), else `npm install`;
//   skipped when the previous release's node_modules can be reused (dependency-reuse.ts);
// - devDependencies are installed too when there is a build script, which usually needs them;
// - `npm run build` when package.json defines a build script;
// - no install at all when package.json declares no dependencies and there is no lockfile (nothing to install);
// - web: what `npm start` runs, without npm in front of it (npm's own start-up costs a few hundred ms on every
//   start and restart): the start script through sh with node_modules/.bin on PATH, or `node server.js` without
//   one; `npm start` itself only when prestart/poststart scripts must run around it. With neither a start
//   script nor server.js, a Procfile web: line must say (else the build fails now rather than at start).
// npm runs in the sandbox with HOME=/app: its cache goes to a folder of the release, removed after the build,
// and it makes no audit, funding or update-check requests.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import semver from "semver";
import { BuildError } from "./errors.ts";
import { readProjectFile, readText } from "./files.ts";
import { depsHash, recordDeps, reuseDependencies } from "./dependency-reuse.ts";
import type { BuildContext, BuildPlan, Builder } from "./types.ts";

export interface PackageJson {
  scripts: Record<string, string>;
  /** engines.node: the Node versions the project runs on (a semver range). */
  engines?: string;
  /** Whether it declares any dependencies, dev or optional ones included. */
  hasDependencies: boolean;
}

/** Runs the start script as npm would ($0 is the script: it is never part of this shell's own text). */
export const RUN_SCRIPT = 'PATH="$PWD/node_modules/.bin:$PATH" exec /bin/sh -c "$0"';

/** The web process of a Node project: its start script, `node server.js`, or npm start when hooks surround it. */
export function nodeWebArgv(pkg: PackageJson): string[] {
  const { start, prestart, poststart } = pkg.scripts;
  if (prestart !== undefined || poststart !== undefined) return ["npm", "start", "--no-update-notifier"];
  return start === undefined ? ["node", "server.js"] : ["/bin/sh", "-c", RUN_SCRIPT, start];
}

const run = promisify(execFile);
const NPM_CACHE = ".npm-cache";
const NPM_FLAGS = ["--no-update-notifier", "--cache", NPM_CACHE];
const INSTALL_FLAGS = ["--no-audit", "--no-fund", ...NPM_FLAGS];
const LOCKFILES = ["npm-shrinkwrap.json", "package-lock.json"];

export const nodeBuilder: Builder = {
  name: "node",
  looksFor: "package.json",
  missingWeb: 'package.json has no "start" script and there is no server.js: add "scripts": {"start": "node <your server file>"}, or a Procfile with a web: line.',
  async detect(ctx) {
    const pkg = await readPackageJson(ctx.dir);
    if (!pkg) return null;
    if (pkg.engines) await checkNodeVersion(pkg.engines, ctx.log);
    // Only whether server.js exists: npm follows it inside the sandbox, so a link (to src/server.js) is fine.
    const hasServerJs = await fs.lstat(path.join(ctx.dir, "server.js")).then(() => true, () => false);
    const web = pkg.scripts.start || hasServerJs ? ({ kind: "process", argv: nodeWebArgv(pkg) } as const) : undefined;
    return { builder: "node", steps: await nodeSteps(ctx, pkg), ...(web ? { web } : {}) };
  },
};

const HOST_NODE = "/usr/bin/node";
let hostNodeVersion: Promise<string | null> | undefined;

/** engines.node, checked against the one Node every sandbox runs (the host's /usr/bin/node). */
async function checkNodeVersion(range: string, log: (line: string) => void): Promise<void> {
  hostNodeVersion ??= run(HOST_NODE, ["--version"]).then(({ stdout }) => stdout.trim().replace(/^v/, ""), () => null);
  const installed = await hostNodeVersion;
  if (!installed) return;
  if (!semver.validRange(range)) throw new BuildError(`package.json "engines": {"node": ${JSON.stringify(range)}} is not a version range: write one like ">=20" or "20.x".`);
  if (!semver.satisfies(installed, range)) {
    throw new BuildError(`package.json asks for Node ${range} ("engines"), and this server has Node ${installed} only: widen the range to include ${installed}.`);
  }
  log(`package.json asks for Node ${range}: using Node ${installed}.`);
}

/** The package.json at the top of the project, or null when there is none. */
export async function readPackageJson(dir: string): Promise<PackageJson | null> {
  const text = await readProjectFile(dir, "package.json", 1024 ** 2);
  if (!text) return null;
  let pkg: unknown;
  try {
    pkg = JSON.parse(readText(text));
  } catch (error) {
    throw new BuildError(`package.json is not valid JSON (${(error as Error).message}).`);
  }
  if (typeof pkg !== "object" || pkg === null || Array.isArray(pkg)) throw new BuildError("package.json must hold a JSON object.");
  const scripts = (pkg as { scripts?: unknown }).scripts ?? {};
  if (typeof scripts !== "object" || scripts === null || Object.values(scripts).some((s) => typeof s !== "string")) {
    throw new BuildError('package.json "scripts" must map script names to command strings.');
  }
  const declared = ["dependencies", "devDependencies", "optionalDependencies"].map((key) => (pkg as Record<string, unknown>)[key]);
  const hasDependencies = declared.some((deps) => !!deps && typeof deps === "object" && Object.keys(deps).length > 0);
  const engines = (pkg as { engines?: { node?: unknown } }).engines?.node;
  return { scripts: scripts as Record<string, string>, hasDependencies, ...(typeof engines === "string" ? { engines } : {}) };
}

/** Install and build steps for a project with a package.json (also used by Procfile projects that have one). */
export async function nodeSteps(ctx: BuildContext, pkg: PackageJson): Promise<BuildPlan["steps"]> {
  const steps: BuildPlan["steps"] = [];
  const hasBuild = typeof pkg.scripts.build === "string";
  const flags = hasBuild ? [...INSTALL_FLAGS, "--include=dev"] : INSTALL_FLAGS;
  const lockfile = await findLockfile(ctx.dir);
  if (lockfile) {
    const argv = ["npm", "ci", ...flags];
    const hash = depsHash(lockfile.contents, argv);
    // npm run build may write into node_modules (tools keep their caches in node_modules/.cache).
    const reused = await reuseDependencies(ctx, { folder: "node_modules", hash, source: lockfile.name, skipping: "npm ci", writtenAfter: hasBuild });
    if (!reused) steps.push({ label: `npm ci (${lockfile.name} found)`, argv });
  } else if (!pkg.hasDependencies) {
    ctx.log("package.json declares no dependencies and there is no lockfile: nothing to install.");
    await recordDeps(ctx.dir, null);
  } else {
    ctx.log("No package-lock.json: running npm install, which resolves versions afresh (commit a lockfile for repeatable builds).");
    steps.push({ label: "npm install", argv: ["npm", "install", ...flags] });
    await recordDeps(ctx.dir, null);
  }
  if (hasBuild) steps.push({ label: "npm run build", argv: ["npm", "run", "build", ...NPM_FLAGS] });
  if (steps.length) steps.push({ label: "remove the npm cache", argv: ["rm", "-rf", NPM_CACHE] });
  return steps;
}

async function findLockfile(dir: string): Promise<{ name: string; contents: Buffer } | null> {
  for (const name of LOCKFILES) {
    const contents = await readProjectFile(dir, name, 256 * 1024 ** 2);
    if (contents) return { name, contents };
  }
  return null;
}
