// The python builder's plans as data (what it installs from, with which interpreter, how it serves), the lockfile
// exports, and the toolchain check every builder goes through. Deploying real Python apps is python.test.ts.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BuildError, builders, detectBuild } from "../../server/hosting/builders/index.ts";
import { dockerfileBuilder } from "../../server/hosting/builders/dockerfile.ts";
import { reuseDependencies } from "../../server/hosting/builders/dependency-reuse.ts";
import { constraintsFromUvLock, pythonBuilder, requirementsFromPipfileLock } from "../../server/hosting/builders/python.ts";
import { describeBuilders, missingToolchainMessage, missingToolchains, toolchainPackages } from "../../server/hosting/builders/toolchains.ts";
import type { Builder, ResolvedPlan } from "../../server/hosting/builders/types.ts";

let base: string;
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), "slipway-python-"));
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function project(name: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(base, name);
  for (const [file, contents] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), contents);
  }
  return dir;
}

async function detect(dir: string, previousDir?: string): Promise<{ plan: ResolvedPlan; log: string[] }> {
  const log: string[] = [];
  const plan = await detectBuild({ dir, previousDir, cachePath: "/cache", runtime: "local", log: (line) => log.push(line) });
  return { plan, log };
}

async function refusal(dir: string): Promise<BuildError> {
  const error = await detect(dir).then(() => expect.fail("expected a BuildError"), (e: Error) => e);
  expect(error).toBeInstanceOf(BuildError);
  return error as BuildError;
}

const PROCFILE = { Procfile: "web: gunicorn app:app\n" };

describe("python builder plans", () => {
  it("requirements.txt: a virtualenv without pip, the host's pip installing into it, the virtualenv first on PATH of every process", async () => {
    const { plan } = await detect(await project("req", { "requirements.txt": "flask\n", ...PROCFILE }));
    expect(plan.builder).toBe("python");
    const python = (await fs.realpath("/usr/bin/python3"));
    expect(plan.steps.map((s) => s.argv)).toEqual([
      [python, "-m", "venv", "--without-pip", ".venv"],
      ["/usr/bin/python3", "-m", "pip", "--python", ".venv/bin/python", "install", "-r", "requirements.txt"],
    ]);
    expect(plan.steps[1].env).toMatchObject({ PATH: "/app/.venv/bin:/usr/bin:/bin", PIP_CACHE_DIR: "/cache/pip" });
    expect(plan.web).toEqual({
      kind: "process",
      argv: ["/bin/sh", "-c", "gunicorn app:app"],
      env: { PATH: "/app/.venv/bin:/usr/bin:/bin", VIRTUAL_ENV: "/app/.venv", PYTHONUNBUFFERED: "1" },
    });
  });

  it("pyproject.toml installs the project (pinned by uv.lock as constraints); Pipfile.lock's default packages are exported", async () => {
    const uvLock = '[[package]]\nname = "flask"\nversion = "3.1.3"\nsource = { registry = "https://pypi.org/simple" }\n\n[[package]]\nname = "mine"\nversion = "0.1.0"\nsource = { editable = "." }\n';
    const uv = await project("uv", { "pyproject.toml": "[project]\nname='mine'\n", "uv.lock": uvLock, ...PROCFILE });
    expect((await detect(uv)).plan.steps[1].argv.slice(5)).toEqual(["install", "-c", ".slipway-python-deps.txt", "."]);
    expect(await fs.readFile(path.join(uv, ".slipway-python-deps.txt"), "utf8")).toBe("flask==3.1.3\n");

    const lock = JSON.stringify({ default: { flask: { version: "==3.1.3" }, colorama: { version: "==0.4.6", markers: "sys_platform == 'win32'" } }, develop: { pytest: { version: "==8.0.0" } } });
    const pipenv = await project("pipenv", { "Pipfile.lock": lock, ...PROCFILE });
    expect((await detect(pipenv)).plan.steps[1].argv.slice(5)).toEqual(["install", "-r", ".slipway-python-deps.txt"]);
    expect(await fs.readFile(path.join(pipenv, ".slipway-python-deps.txt"), "utf8")).toBe("flask==3.1.3\ncolorama==0.4.6; sys_platform == 'win32'\n");
  });

  it("refuses lockfiles it cannot read with the file named", () => {
    expect(() => requirementsFromPipfileLock("{nope")).toThrow(/Pipfile.lock is not valid JSON/);
    expect(() => requirementsFromPipfileLock('{"default": {"a b": {}}}')).toThrow(/not a valid name/);
    expect(() => constraintsFromUvLock("version = 1\n")).toThrow(/uv.lock pins no package/);
  });

  it("recognises Django (manage.py and <project>/wsgi.py): gunicorn <project>.wsgi, collectstatic only when STATIC_ROOT is set", async () => {
    const files = { "requirements.txt": "django\ngunicorn\n", "manage.py": "", "site_a/wsgi.py": "", "site_a/settings.py": "DEBUG = True\n" };
    const { plan, log } = await detect(await project("dj", files));
    expect(plan.web).toMatchObject({ kind: "process", argv: ["gunicorn", "site_a.wsgi"] });
    expect(plan.steps.map((s) => s.label)).not.toContain("collectstatic");
    expect(log.join("\n")).toMatch(/Django project site_a found/);
    const withStatic = await detect(await project("dj2", { ...files, "site_a/settings.py": "STATIC_ROOT = BASE_DIR / 'static'\n" }));
    expect(withStatic.plan.steps.at(-1)?.argv).toEqual(["python", "manage.py", "collectstatic", "--noinput"]);
  });

  it("needs a Procfile web: line otherwise, and says so with examples", async () => {
    const error = await refusal(await project("noweb", { "requirements.txt": "flask\n" }));
    expect(error.message).toMatch(/Procfile with a web: line .*"web: gunicorn app:app" \(Flask\)/);
    expect(error.builder).toBe("python");
  });

  it("takes the interpreter .python-version or runtime.txt asks for among those installed, and names them when it is not", async () => {
    const installed = (await fs.readdir("/usr/bin")).filter((f) => /^python3\.\d+$/.test(f));
    const version = installed[0].slice("python".length);
    const { log } = await detect(await project("pinned", { "requirements.txt": "", ".python-version": `${version}.0\n`, ...PROCFILE }));
    expect(log.join("\n")).toContain(`.python-version asks for Python ${version}.0: using /usr/bin/python${version}`);
    const runtime = await refusal(await project("runtime", { "requirements.txt": "", "runtime.txt": "python-2.7.18\n", ...PROCFILE }));
    expect(runtime.message).toMatch(/^runtime.txt asks for Python 2\.7\.18, which this server does not have \(installed: 3\.\d+/);
    const nonsense = await refusal(await project("nonsense", { "requirements.txt": "", ".python-version": "latest\n", ...PROCFILE }));
    expect(nonsense.message).toMatch(/expected a version like 3\.11/);
  });

  it("reuses the previous release's virtualenv when the requirements are unchanged, and installs again when they change", async () => {
    const previous = await project("previous", { "requirements.txt": "flask\n", ...PROCFILE });
    await detect(previous);
    await fs.mkdir(path.join(previous, ".venv/bin"), { recursive: true });
    await fs.symlink("/usr/bin/python3", path.join(previous, ".venv/bin/python"));
    await fs.writeFile(path.join(previous, ".venv/pyvenv.cfg"), "home = /usr/bin\n");
    const same = await detect(await project("same", { "requirements.txt": "flask\n", ...PROCFILE }), previous);
    expect(same.plan.steps).toEqual([]);
    expect(same.log.join("\n")).toMatch(/requirements.txt is unchanged: reusing .venv from the previous release \(1 file\), skipping pip install/);
    expect(await fs.readlink(path.join(base, "same/.venv/bin/python"))).toBe("/usr/bin/python3");
    const changed = await detect(await project("changed", { "requirements.txt": "flask\ngunicorn\n", ...PROCFILE }), previous);
    expect(changed.plan.steps).toHaveLength(2);
    expect(changed.log.join("\n")).toMatch(/requirements.txt changed since the previous release: installing dependencies/);
  });
});

describe("dependency reuse of a nested folder (vendor/bundle)", () => {
  const reuse = { folder: "vendor/bundle", hash: "h", source: "Gemfile.lock", skipping: "bundle install" };

  async function previousWithGems(): Promise<string> {
    const previous = await project("previous", { ".slipway-deps": "h\n", "vendor/bundle/gems/rack.rb": "rack" });
    return previous;
  }

  it("copies it when both releases' vendor/ are folders (made when missing)", async () => {
    const previous = await previousWithGems();
    const dir = await project("next", { "Gemfile.lock": "" });
    const log: string[] = [];
    expect(await reuseDependencies({ dir, previousDir: previous, cachePath: "/cache", runtime: "local", log: (l) => log.push(l) }, reuse)).toBe(true);
    expect(await fs.readFile(path.join(dir, "vendor/bundle/gems/rack.rb"), "utf8")).toBe("rack");
  });

  it("links files nobody writes afterwards, and copies them when a later step does, so the previous release keeps its own", async () => {
    const ctx = (dir: string, previousDir: string) => ({ dir, previousDir, cachePath: "/cache", runtime: "local", log: () => {} });
    const file = (dir: string) => path.join(dir, "vendor/bundle/gems/rack.rb");
    const linked = await project("linked-next", { "Gemfile.lock": "" });
    const previous = await previousWithGems();
    expect(await reuseDependencies(ctx(linked, previous), reuse)).toBe(true);
    expect((await fs.stat(file(linked))).ino).toBe((await fs.stat(file(previous))).ino);
    const copied = await project("copied-next", { "Gemfile.lock": "" });
    expect(await reuseDependencies(ctx(copied, previous), { ...reuse, writtenAfter: true })).toBe(true);
    expect((await fs.stat(file(copied))).ino).not.toBe((await fs.stat(file(previous))).ino);
    await fs.writeFile(file(copied), "rewritten by composer dump-autoload");
    expect(await fs.readFile(file(previous), "utf8")).toBe("rack");
    // Either way the release records what its dependencies are installed from.
    expect(await fs.readFile(path.join(copied, ".slipway-deps"), "utf8")).toBe("h\n");
  });

  it("never copies through a link: not into a vendor/ that is a link, nor out of a previous vendor/ swapped for one", async () => {
    const outside = await project("outside", { "bundle/gems/secret.rb": "secret" });
    const previous = await previousWithGems();
    const linked = await project("linked", { "Gemfile.lock": "" });
    await fs.symlink(outside, path.join(linked, "vendor"));
    const log: string[] = [];
    const ctx = (dir: string, previousDir: string) => ({ dir, previousDir, cachePath: "/cache", runtime: "local", log: (l: string) => log.push(l) });
    expect(await reuseDependencies(ctx(linked, previous), reuse)).toBe(false);
    expect(log.at(-1)).toBe("vendor is not a folder in this project: installing dependencies.");
    expect(await fs.readFile(path.join(outside, "bundle/gems/secret.rb"), "utf8")).toBe("secret");

    const swapped = await project("swapped", { ".slipway-deps": "h\n" });
    await fs.symlink(outside, path.join(swapped, "vendor"));
    const next = await project("next2", { "Gemfile.lock": "" });
    expect(await reuseDependencies(ctx(next, swapped), reuse)).toBe(false);
    expect(log.at(-1)).toMatch(/^Could not reuse vendor\/bundle from the previous release \((ELOOP|ENOTDIR)/);
    expect(await fs.readdir(path.join(next, "vendor"))).toEqual([]);
  });
});

describe("toolchains", () => {
  const absent: Builder = {
    name: "cobol",
    looksFor: "main.cob",
    toolchains: [{ command: "/usr/bin/slipway-no-such-compiler", debianPackage: "gnucobol4" }],
    detect: async () => null,
  };

  it("finds a missing toolchain, names the package to install, and lists what the host can build at boot", async () => {
    expect(await missingToolchains(pythonBuilder)).toEqual([]);
    const missing = await missingToolchains(absent);
    expect(missing.map((t) => t.command)).toEqual(["/usr/bin/slipway-no-such-compiler"]);
    expect(missingToolchainMessage(absent, missing)).toBe(
      "The cobol builder needs /usr/bin/slipway-no-such-compiler, which this Slipway server does not have: its operator can add it with `apt-get install gnucobol4`.",
    );
    expect(await describeBuilders([pythonBuilder, absent], "local")).toBe("builders available: python; unavailable: cobol (apt-get install gnucobol4)");
    // The container runtimes' base image holds the host's toolchains: the same builders run there.
    expect(await describeBuilders([pythonBuilder, dockerfileBuilder], "docker")).toBe("builders available: python, dockerfile");
    expect(await describeBuilders([pythonBuilder, dockerfileBuilder], "local")).toBe("builders available: python; unavailable: dockerfile (RUNTIME=docker|swarm only)");
  });

  it("lists every toolchain's Debian packages, and the host's add-ons, for the container runtimes' base image", () => {
    const packages = toolchainPackages(builders);
    for (const name of ["python3", "python3-venv", "python3-pip", "golang-go", "ruby", "ruby-bundler", "php-cli", "php-fpm", "caddy", "composer"]) expect(packages).toContain(name);
    const patterns = packages.filter((p): p is RegExp => p instanceof RegExp);
    expect(patterns.some((p) => p.test("puma") && p.test("ruby-rack"))).toBe(true);
    expect(patterns.some((p) => p.test("php8.2-mbstring"))).toBe(true);
    expect(patterns.some((p) => p.test("python3-apt") || p.test("libc6"))).toBe(false);
  });
});
