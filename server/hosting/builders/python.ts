// Python projects (requirements.txt, pyproject.toml, Pipfile.lock or uv.lock at the top):
// - the interpreter: what .python-version or runtime.txt asks for among those installed on the host (its
//   major.minor; Debian's python3 by default), a version that is not installed fails the build naming those that are;
// - a virtualenv per release at /app/.venv, made without pip (fast) and filled by the host's pip through
//   `pip --python`, with pip's cache in the app's build cache; copied from the previous release instead when the
//   dependency files, the interpreter and the install command are unchanged (dependency-reuse.ts);
// - what is installed: requirements.txt as is; a pyproject.toml with `pip install .` (PEP 517), pinned by uv.lock
//   when there is one (exported as pip constraints, so only what the project needs is installed); Pipfile.lock's
//   default packages exported as a requirements list (pip has no reader of its own for either lock);
// - Django (manage.py and a <project>/wsgi.py): web defaults to `gunicorn <project>.wsgi`, and collectstatic runs
//   when the settings set STATIC_ROOT, as Heroku's Python buildpack does. Anything else needs a Procfile web: line.
// Every process of the release gets the virtualenv first on PATH, so `gunicorn`, `python` and `uvicorn` are its own.
import fs from "node:fs/promises";
import path from "node:path";
import { BuildError } from "./errors.ts";
import { depsHash, reuseDependencies } from "./dependency-reuse.ts";
import { hasProjectFile, readProjectFile, readText, writeProjectFile } from "./files.ts";
import { chooseInterpreter, readPinned, type Language, type Pinned } from "./interpreters.ts";
import type { BuildContext, BuildPlan, BuildStep, Builder } from "./types.ts";

const VENV = ".venv";
const HOST_PYTHON = "/usr/bin/python3";
/** The virtualenv as every command of the release sees it (the sandbox's working directory is /app). */
const VENV_IN_APP = `/app/${VENV}`;
const EXPORTED = ".slipway-python-deps.txt";
const MAX_DEPS_FILE = 16 * 1024 ** 2;

const DEPENDENCY_FILES = ["requirements.txt", "pyproject.toml", "Pipfile.lock", "uv.lock"];

export const pythonBuilder: Builder = {
  name: "python",
  looksFor: "requirements.txt, pyproject.toml, Pipfile.lock or uv.lock",
  missingWeb:
    'A Python project needs a Procfile with a web: line naming the command that serves it on $PORT, for example "web: gunicorn app:app" (Flask), ' +
    '"web: uvicorn main:app --host 0.0.0.0 --port $PORT" (FastAPI) or "web: python3 app.py". Django projects (manage.py and <project>/wsgi.py) need none.',
  toolchains: [{ command: HOST_PYTHON, debianPackage: "python3 python3-venv python3-pip" }],
  async detect(ctx) {
    const files = await presentFiles(ctx.dir);
    if (!files.length) return null;
    const python = await chooseInterpreter(PYTHON, await pinnedPython(ctx.dir), ctx.log);
    const processEnv = { PATH: `${VENV_IN_APP}/bin:/usr/bin:/bin`, VIRTUAL_ENV: VENV_IN_APP, PYTHONUNBUFFERED: "1" };
    const stepEnv = { ...processEnv, PIP_CACHE_DIR: `${ctx.cachePath}/pip`, PIP_DISABLE_PIP_VERSION_CHECK: "1", PIP_NO_INPUT: "1" };
    const install = await installPlan(ctx, files);
    const steps: BuildStep[] = [];
    const hash = depsHash(install.inputs, install.argv, python.path);
    const reuse = { folder: VENV, hash, source: install.source, skipping: "pip install", writtenAfter: install.installsProject };
    const reused = await reuseDependencies(ctx, reuse);
    if (!reused) {
      steps.push({ label: `a virtualenv with ${python.name}`, argv: [python.path, "-m", "venv", "--without-pip", VENV], env: stepEnv });
      steps.push({ label: `pip install (${install.source})`, argv: pip(install.argv), env: stepEnv });
    } else if (install.installsProject) {
      steps.push({ label: "pip install of the project itself", argv: pip(["install", "--no-deps", "--force-reinstall", "."]), env: stepEnv });
    }
    const django = await findDjango(ctx.dir);
    if (django?.collectstatic) steps.push({ label: "collectstatic", argv: ["python", "manage.py", "collectstatic", "--noinput"], env: stepEnv });
    const plan: BuildPlan = { builder: "python", steps, processEnv };
    if (django) {
      ctx.log(`Django project ${django.project} found: web defaults to gunicorn ${django.project}.wsgi (a Procfile web: line replaces it).`);
      plan.web = { kind: "process", argv: ["gunicorn", `${django.project}.wsgi`] };
    }
    return plan;
  },
};

/** The host's pip, installing into the release's virtualenv (pip >= 22.3). */
function pip(args: string[]): string[] {
  return [HOST_PYTHON, "-m", "pip", "--python", `${VENV}/bin/python`, ...args];
}

async function presentFiles(dir: string): Promise<string[]> {
  const present: string[] = [];
  for (const name of DEPENDENCY_FILES) if (await hasProjectFile(dir, name)) present.push(name);
  return present;
}

interface InstallPlan {
  /** pip's arguments after `pip`. */
  argv: string[];
  /** The bytes the install depends on: a change means installing again. */
  inputs: Buffer[];
  /** The files named in the log. */
  source: string;
  /** pip installs the project itself (pyproject.toml): its code changes with every release. */
  installsProject: boolean;
}

async function installPlan(ctx: BuildContext, files: string[]): Promise<InstallPlan> {
  const read = async (name: string) => (await readProjectFile(ctx.dir, name, MAX_DEPS_FILE))!;
  if (files.includes("pyproject.toml")) {
    const inputs = [await read("pyproject.toml")];
    const argv = ["install", "."];
    if (files.includes("uv.lock")) {
      const lock = await read("uv.lock");
      await writeProjectFile(ctx.dir, EXPORTED, constraintsFromUvLock(readText(lock)));
      return { argv: ["install", "-c", EXPORTED, "."], inputs: [...inputs, lock], source: "pyproject.toml and uv.lock", installsProject: true };
    }
    return { argv, inputs, source: "pyproject.toml", installsProject: true };
  }
  if (files.includes("requirements.txt")) {
    return { argv: ["install", "-r", "requirements.txt"], inputs: [await read("requirements.txt")], source: "requirements.txt", installsProject: false };
  }
  if (files.includes("Pipfile.lock")) {
    const lock = await read("Pipfile.lock");
    await writeProjectFile(ctx.dir, EXPORTED, requirementsFromPipfileLock(readText(lock)));
    return { argv: ["install", "-r", EXPORTED], inputs: [lock], source: "Pipfile.lock", installsProject: false };
  }
  throw new BuildError("uv.lock needs the pyproject.toml it was locked from beside it.");
}

/** Pipfile.lock's default (not develop) packages as requirement lines, with their versions and markers. */
export function requirementsFromPipfileLock(text: string): string {
  let lock: unknown;
  try {
    lock = JSON.parse(text);
  } catch (error) {
    throw new BuildError(`Pipfile.lock is not valid JSON (${(error as Error).message}).`);
  }
  const packages = (lock as { default?: unknown } | null)?.default;
  if (typeof packages !== "object" || packages === null) throw new BuildError('Pipfile.lock has no "default" section of packages.');
  const lines = Object.entries(packages as Record<string, { version?: unknown; markers?: unknown }>).map(([name, spec]) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) throw new BuildError(`Pipfile.lock names a package ${JSON.stringify(name)} that is not a valid name.`);
    const version = typeof spec?.version === "string" && /^==[^\s;]+$/.test(spec.version) ? spec.version : "";
    const markers = typeof spec?.markers === "string" && !/[\r\n]/.test(spec.markers) ? `; ${spec.markers}` : "";
    return `${name}${version}${markers}`;
  });
  return `${lines.join("\n")}\n`;
}

/** uv.lock's packages from a registry, pinned as pip constraints (a constraint never installs a package by itself). */
export function constraintsFromUvLock(text: string): string {
  const pins: string[] = [];
  for (const block of text.split(/^\[\[package\]\]\s*$/m).slice(1)) {
    const name = /^name\s*=\s*"([A-Za-z0-9._-]+)"\s*$/m.exec(block)?.[1];
    const version = /^version\s*=\s*"([^"\s;]+)"\s*$/m.exec(block)?.[1];
    const fromRegistry = /^source\s*=\s*\{\s*registry\s*=/m.test(block);
    if (name && version && fromRegistry) pins.push(`${name}==${version}`);
  }
  if (!pins.length) throw new BuildError("uv.lock pins no package from a registry: is it a uv lockfile? Run `uv lock` again.");
  return `${pins.join("\n")}\n`;
}

const PYTHON: Language = { name: "Python", hostDefault: HOST_PYTHON, versioned: /^python(3)\.(\d+)$/, prefix: /^python-?/i };

/** .python-version, else runtime.txt (Heroku's "python-3.11.2"). */
async function pinnedPython(dir: string): Promise<Pinned | null> {
  return (await readPinned(dir, ".python-version")) ?? (await readPinned(dir, "runtime.txt"));
}

/** A Django project: manage.py at the top and <project>/wsgi.py beside it; collectstatic when its settings set STATIC_ROOT. */
async function findDjango(dir: string): Promise<{ project: string; collectstatic: boolean } | null> {
  if (!(await hasProjectFile(dir, "manage.py"))) return null;
  const entries = await fs.readdir(dir, { withFileTypes: true });
  for (const entry of entries.filter((e) => e.isDirectory() && /^[A-Za-z_][A-Za-z0-9_]*$/.test(e.name)).sort((a, b) => a.name.localeCompare(b.name))) {
    const wsgi = await fs.lstat(path.join(dir, entry.name, "wsgi.py")).catch(() => null);
    if (!wsgi?.isFile()) continue;
    const settings = await readProjectFile(path.join(dir, entry.name), "settings.py", 1024 ** 2).catch(() => null);
    const collectstatic = !!settings && /^\s*STATIC_ROOT\s*=/m.test(readText(settings));
    return { project: entry.name, collectstatic };
  }
  return null;
}
