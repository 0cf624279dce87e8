// Build detection and plans (server/hosting/builders). Plans are checked as data, then their commands are run
// here directly with child_process (unsandboxed, in a copy of the fixture) to prove they build and serve:
// npm is pointed at an unreachable registry, so every install must work offline.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BuildError, builders, detectBuild } from "../../server/hosting/builders/index.ts";
import { DEPS_MARKER } from "../../server/hosting/builders/dependency-reuse.ts";
import type { ResolvedPlan as BuildPlan } from "../../server/hosting/builders/types.ts";

const run = promisify(execFile);
const fixtures = path.resolve(import.meta.dirname, "../fixtures/apps");

let base: string;
beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), "slipway-builders-"));
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** A fresh release directory: a copy of a fixture, or files written from a map. */
async function release(name: string, from: string | Record<string, string>): Promise<string> {
  const dir = path.join(base, name);
  if (typeof from === "string") await fs.cp(path.join(fixtures, from), dir, { recursive: true });
  else {
    await fs.mkdir(dir);
    for (const [file, contents] of Object.entries(from)) await fs.writeFile(path.join(dir, file), contents);
  }
  return dir;
}

async function detect(dir: string, previousDir?: string): Promise<{ plan: BuildPlan; log: string[] }> {
  const log: string[] = [];
  const plan = await detectBuild({ dir, previousDir, cachePath: path.join(dir, ".cache"), runtime: "local", log: (line) => log.push(line) });
  return { plan, log };
}

async function detectError(dir: string): Promise<{ error: Error; log: string[] }> {
  const log: string[] = [];
  const error = await detectBuild({ dir, cachePath: path.join(dir, ".cache"), runtime: "local", log: (line) => log.push(line) }).then(
    () => expect.fail("expected a BuildError"),
    (e: Error) => e,
  );
  expect(error).toBeInstanceOf(BuildError);
  return { error, log };
}

/** The environment a sandboxed build sees, minus the sandbox; the registry is unreachable. */
function buildEnv(dir: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, npm_config_registry: "http://127.0.0.1:9/", npm_config_fetch_retries: "0" };
}

async function runSteps(plan: BuildPlan, dir: string): Promise<void> {
  for (const step of [...plan.steps, ...(plan.release ? [{ label: "release", argv: plan.release }] : [])]) {
    await run(step.argv[0], step.argv.slice(1), { cwd: dir, env: buildEnv(dir) });
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the plan's web process, returns the body of GET /, stops it. */
async function serve(plan: BuildPlan, dir: string): Promise<string> {
  if (plan.web.kind !== "process") throw new Error("not a process");
  const port = await freePort();
  const child = spawn(plan.web.argv[0], plan.web.argv.slice(1), { cwd: dir, env: { ...buildEnv(dir), PORT: String(port) }, detached: true, stdio: "ignore" });
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const body = await fetch(`http://127.0.0.1:${port}/`).then((r) => r.text(), () => null);
      if (body !== null) return body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("the web process never answered");
  } finally {
    process.kill(-child.pid!, "SIGKILL");
  }
}

const exists = (file: string) => fs.lstat(file).then(() => true, () => false);

describe("detection order", () => {
  it("tries each language, then a Procfile alone, then index.html; a Procfile's web: line replaces the language's default", async () => {
    expect(builders.map((b) => b.name)).toEqual(["dockerfile", "node", "python", "go", "ruby", "php", "procfile", "static"]);
    const all = { Procfile: "web: node other.js\n", "package.json": "{}", "server.js": "", "index.html": "" };
    const withProcfile = (await detect(await release("a", all))).plan;
    expect(withProcfile.builder).toBe("node");
    expect(withProcfile.web).toEqual({ kind: "process", argv: ["/bin/sh", "-c", "node other.js"] });
    const { Procfile: _procfile, ...noProcfile } = all;
    expect((await detect(await release("b", noProcfile))).plan.builder).toBe("node");
    expect((await detect(await release("c", { Procfile: "web: ./serve\n", "index.html": "" }))).plan.builder).toBe("procfile");
    expect((await detect(await release("d", { "index.html": "<h1>hi</h1>" }))).plan.builder).toBe("static");
  });

  it("fails an unknown project with a log line saying what was looked for and what is there", async () => {
    const dir = await release("unknown", { "README.md": "# hi" });
    await fs.mkdir(path.join(dir, "my-site"));
    const { error, log } = await detectError(dir);
    expect(error.message).toMatch(
      /^No Dockerfile, package.json, requirements.txt, pyproject.toml, Pipfile.lock or uv.lock, go.mod, Gemfile, composer.json or index.php, Procfile or index.html found at the top of the project: it holds my-site\/, README.md\. Add the files of one of these languages, a Procfile/,
    );
    expect(log).toContain(error.message);
  });
});

describe("node builder", () => {
  it("node-plain: no dependencies, nothing to install; starts server.js as npm start would, without npm", async () => {
    const dir = await release("plain", "node-plain");
    const { plan, log } = await detect(dir);
    expect(plan).toEqual({ builder: "node", steps: [], web: { kind: "process", argv: ["node", "server.js"] } });
    expect(log.join("\n")).toMatch(/declares no dependencies and there is no lockfile: nothing to install/);
    expect(await serve(plan, dir)).toBe("hello from node-plain\n");
  });

  it("runs npm install when dependencies are declared without a lockfile; the start script runs through sh with node_modules/.bin on PATH", async () => {
    const files = { "package.json": JSON.stringify({ dependencies: { left: "1.0.0" }, scripts: { start: "node server.js" } }), "server.js": "" };
    const { plan, log } = await detect(await release("nolock", files));
    expect(plan.steps.map((s) => s.argv)).toEqual([
      ["npm", "install", "--no-audit", "--no-fund", "--no-update-notifier", "--cache", ".npm-cache"],
      ["rm", "-rf", ".npm-cache"],
    ]);
    expect(log.join("\n")).toMatch(/No package-lock.json: running npm install/);
    expect(plan.web).toEqual({ kind: "process", argv: ["/bin/sh", "-c", 'PATH="$PWD/node_modules/.bin:$PATH" exec /bin/sh -c "$0"', "node server.js"] });
    const hooked = await detect(await release("hooked", { "package.json": JSON.stringify({ scripts: { prestart: "echo hi", start: "node server.js" } }), "server.js": "" }));
    expect(hooked.plan.web).toEqual({ kind: "process", argv: ["npm", "start", "--no-update-notifier"] });
  });

  it("node-dep: npm ci from the lockfile with dev dependencies, npm run build, offline; the cache is removed", async () => {
    const dir = await release("dep", "node-dep");
    const { plan } = await detect(dir);
    expect(plan.steps.map((s) => s.argv)).toEqual([
      ["npm", "ci", "--no-audit", "--no-fund", "--no-update-notifier", "--cache", ".npm-cache", "--include=dev"],
      ["npm", "run", "build", "--no-update-notifier", "--cache", ".npm-cache"],
      ["rm", "-rf", ".npm-cache"],
    ]);
    await runSteps(plan, dir);
    expect(await fs.readFile(path.join(dir, "dist/message.txt"), "utf8")).toBe("hello from node-dep (built)\n");
    expect(await exists(path.join(dir, ".npm-cache"))).toBe(false);
    expect(await serve(plan, dir)).toBe("hello from node-dep (built)\n");
  });

  it("prefers npm-shrinkwrap.json, and fails a project with neither a start script nor server.js", async () => {
    const dir = await release("shrink", { "package.json": '{"scripts":{"start":"node a.js"}}', "npm-shrinkwrap.json": "{}" });
    expect((await detect(dir)).plan.steps[0].label).toBe("npm ci (npm-shrinkwrap.json found)");
    const { error } = await detectError(await release("nostart", { "package.json": '{"scripts":{"build":"tsc"}}' }));
    expect(error.message).toMatch(/no "start" script and there is no server.js/);
  });

  it("accepts server.js as a link (npm follows it in the sandbox) and files written with a byte-order mark", async () => {
    const dir = await release("linked", { "package.json": '\uFEFF{"name":"x"}' });
    await fs.symlink("src/server.js", path.join(dir, "server.js"));
    expect((await detect(dir)).plan.builder).toBe("node");
    const procfile = await release("bom", { Procfile: "\uFEFFweb: node a.js\r\n" });
    expect((await detect(procfile)).plan.web).toEqual({ kind: "process", argv: ["/bin/sh", "-c", "node a.js"] });
  });

  it("checks engines.node against the Node every sandbox runs, and names both when they disagree", async () => {
    const installed = process.version.slice(1);
    const major = installed.split(".")[0];
    const ok = await detect(await release("engines-ok", { "package.json": JSON.stringify({ engines: { node: `>=${major}` } }), "server.js": "" }));
    expect(ok.log.join("\n")).toContain(`package.json asks for Node >=${major}: using Node ${installed}.`);
    const old = await detectError(await release("engines-old", { "package.json": JSON.stringify({ engines: { node: "^8" } }), "server.js": "" }));
    expect(old.error.message).toBe(`package.json asks for Node ^8 ("engines"), and this server has Node ${installed} only: widen the range to include ${installed}.`);
    const bad = await detectError(await release("engines-bad", { "package.json": JSON.stringify({ engines: { node: "the latest" } }), "server.js": "" }));
    expect(bad.error.message).toMatch(/is not a version range/);
  });

  it("fails an invalid package.json with a message saying so", async () => {
    expect((await detectError(await release("bad", { "package.json": "{ nope" }))).error.message).toMatch(/package.json is not valid JSON/);
    expect((await detectError(await release("arr", { "package.json": "[]" }))).error.message).toMatch(/must hold a JSON object/);
    const scripts = { "package.json": '{"scripts":{"start":["node","x"]}}' };
    expect((await detectError(await release("scr", scripts))).error.message).toMatch(/"scripts" must map script names to command strings/);
  });
});

describe("static builder", () => {
  it("serves the release directory itself, with no build steps", async () => {
    const dir = await release("static", "static");
    expect((await detect(dir)).plan).toEqual({ builder: "static", steps: [], web: { kind: "static", root: dir } });
  });
});

describe("procfile builder", () => {
  it("runs web, release and the other types as the user's own command lines through /bin/sh -c; the release phase writes its file", async () => {
    const dir = await release("procfile", "procfile");
    const { plan, log } = await detect(dir);
    expect(plan).toEqual({
      builder: "procfile",
      steps: [],
      release: ["/bin/sh", "-c", "node release.js"],
      web: { kind: "process", argv: ["/bin/sh", "-c", "node web.js"] },
      processes: { worker: ["/bin/sh", "-c", "node worker.js"] },
    });
    expect(log).toContain("Procfile: worker runs beside web (1 instance each unless scaled: slipway ps:scale worker=2).");
    await runSteps(plan, dir);
    expect(await fs.readFile(path.join(dir, "released.txt"), "utf8")).toMatch(/^released at /);
    expect(await serve(plan, dir)).toMatch(/^hello from procfile \(released at /);
  });

  it("installs and builds a package.json beside the Procfile, like Heroku's Node buildpack", async () => {
    const dir = await release("both", "node-dep");
    await fs.writeFile(path.join(dir, "Procfile"), "web: node index.js\n");
    const { plan } = await detect(dir);
    expect(plan.builder).toBe("node");
    expect(plan.web).toEqual({ kind: "process", argv: ["/bin/sh", "-c", "node index.js"] });
    expect(plan.steps.map((s) => s.argv.slice(0, 3))).toEqual([["npm", "ci", "--no-audit"], ["npm", "run", "build"], ["rm", "-rf", ".npm-cache"]]);
    expect(plan.release).toBeUndefined();
  });

  it.each([
    ["worker: node w.js\n", /The Procfile has no web: line/],
    ["web node server.js\n", /Procfile line 1 is not "type: command"/],
    ["# comment\nweb:\n", /Procfile line 2 gives web: no command/],
    ["web: a\nweb: b\n", /Procfile line 2 declares web: a second time/],
  ])("refuses the Procfile %j with a clear message", async (procfile, message) => {
    expect((await detectError(await release("p", { Procfile: procfile }))).error.message).toMatch(message);
  });
});

describe("node_modules reuse", () => {
  /** A previous release built from node-dep: its marker as detection wrote it, and a stand-in node_modules. */
  async function previousRelease(): Promise<string> {
    const dir = await release("previous", "node-dep");
    await detect(dir);
    await fs.mkdir(path.join(dir, "node_modules/greeting"), { recursive: true });
    await fs.writeFile(path.join(dir, "node_modules/greeting/index.js"), "module.exports = () => 'reused';\n");
    return dir;
  }

  it("reuses node_modules and skips npm ci when the lockfile is unchanged", async () => {
    const previous = await previousRelease();
    const dir = await release("next", "node-dep");
    const { plan, log } = await detect(dir, previous);
    expect(plan.steps.map((s) => s.argv[1])).toEqual(["run", "-rf"]);
    expect(log.join("\n")).toMatch(/package-lock.json is unchanged: reusing node_modules from the previous release \(1 file\), skipping npm ci/);
    expect(await fs.readFile(path.join(dir, "node_modules/greeting/index.js"), "utf8")).toMatch(/reused/);
    expect(await fs.readFile(path.join(dir, DEPS_MARKER), "utf8")).toBe(await fs.readFile(path.join(previous, DEPS_MARKER), "utf8"));
  });

  it("reinstalls when the lockfile changed", async () => {
    const previous = await previousRelease();
    const dir = await release("next", "node-dep");
    const lock = JSON.parse(await fs.readFile(path.join(dir, "package-lock.json"), "utf8"));
    lock.packages["node_modules/greeting"].license = "ISC";
    await fs.writeFile(path.join(dir, "package-lock.json"), JSON.stringify(lock));
    const { plan, log } = await detect(dir, previous);
    expect(plan.steps[0].argv.slice(0, 2)).toEqual(["npm", "ci"]);
    expect(log.join("\n")).toMatch(/package-lock.json changed since the previous release: installing dependencies/);
    expect(await exists(path.join(dir, "node_modules"))).toBe(false);
  });

  it("copies links in the previous node_modules as links, never following them, skips FIFOs and drops setuid", async () => {
    const previous = await previousRelease();
    const outside = path.join(base, "platform-secrets");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "secret.txt"), "platform secret");
    const modules = path.join(previous, "node_modules");
    await fs.symlink(outside, path.join(modules, "evil-dir"));
    await fs.symlink(path.join(outside, "secret.txt"), path.join(modules, "greeting/evil-file"));
    await fs.symlink("../greeting", path.join(modules, "relative-link"));
    await run("mkfifo", [path.join(modules, "pipe")]);
    await fs.chmod(path.join(modules, "greeting/index.js"), 0o4755);

    const dir = await release("next", "node-dep");
    const { log } = await detect(dir, previous);
    expect(log.join("\n")).toMatch(/reusing node_modules/);
    const copied = path.join(dir, "node_modules");
    for (const [link, target] of [
      ["evil-dir", outside],
      ["greeting/evil-file", path.join(outside, "secret.txt")],
      ["relative-link", "../greeting"],
    ]) {
      expect((await fs.lstat(path.join(copied, link))).isSymbolicLink()).toBe(true);
      expect(await fs.readlink(path.join(copied, link))).toBe(target);
    }
    expect(await exists(path.join(copied, "pipe"))).toBe(false);
    expect((await fs.stat(path.join(copied, "greeting/index.js"))).mode & 0o7777).toBe(0o755);
    const files = await fs.readdir(copied, { recursive: true, withFileTypes: true });
    expect(files.filter((f) => f.isFile()).map((f) => f.name)).toEqual(["index.js"]);
  });

  it("does not reuse a node_modules that is itself a link, nor trust a marker that is a link", async () => {
    const previous = await previousRelease();
    const elsewhere = path.join(base, "elsewhere");
    await fs.rename(path.join(previous, "node_modules"), elsewhere);
    await fs.symlink(elsewhere, path.join(previous, "node_modules"));
    const dir = await release("next", "node-dep");
    const { plan, log } = await detect(dir, previous);
    expect(plan.steps[0].argv[1]).toBe("ci");
    expect(log.join("\n")).toMatch(/Could not reuse node_modules from the previous release/);
    expect(await exists(path.join(dir, "node_modules"))).toBe(false);

    const marker = path.join(previous, DEPS_MARKER);
    await fs.rename(marker, path.join(base, "marker"));
    await fs.symlink(path.join(base, "marker"), marker);
    const again = await release("again", "node-dep");
    expect((await detect(again, previous)).plan.steps[0].argv[1]).toBe("ci");
  });

  it("replaces a marker the project itself holds as a link, without writing through it", async () => {
    const dir = await release("linked", "node-dep");
    const target = path.join(base, "platform-file");
    await fs.writeFile(target, "untouched");
    await fs.symlink(target, path.join(dir, DEPS_MARKER));
    await detect(dir);
    expect(await fs.readFile(target, "utf8")).toBe("untouched");
    expect((await fs.lstat(path.join(dir, DEPS_MARKER))).isFile()).toBe(true);
  });
});

describe("user input never reaches a platform-side shell", () => {
  it("detection runs nothing, and the user's lines only ever appear as one sh -c argument inside the sandbox", async () => {
    const pwned = path.join(base, "pwned");
    const payload = `touch ${pwned}; $(touch ${pwned}) \`touch ${pwned}\` | touch ${pwned} && touch ${pwned}`;
    const pkg = { name: `x$(touch ${pwned})`, scripts: { build: payload, start: payload, preinstall: payload, prepare: payload } };
    const files = { "package.json": JSON.stringify(pkg), "package-lock.json": "{}" };

    const node = await detect(await release("node", files));
    const procfile = await detect(await release("procfile", { ...files, Procfile: `web: ${payload}\nrelease: ${payload}\n` }));
    expect(await exists(pwned)).toBe(false);

    for (const { plan } of [node, procfile]) for (const step of plan.steps) expect(step.argv.join(" ")).not.toContain("touch");
    expect(node.plan.web).toEqual({ kind: "process", argv: ["/bin/sh", "-c", 'PATH="$PWD/node_modules/.bin:$PATH" exec /bin/sh -c "$0"', payload] });
    expect(procfile.plan.web).toEqual({ kind: "process", argv: ["/bin/sh", "-c", payload] });
    expect(procfile.plan.release).toEqual(["/bin/sh", "-c", payload]);
  });

  it("never reads build files through links (a git checkout may link package.json to the platform's secrets)", async () => {
    const secret = path.join(base, "secret");
    await fs.writeFile(secret, "SECRET=platform-value");
    for (const name of ["Procfile", "package.json", "index.html"]) {
      const dir = await release(`link-${name}`, {});
      await fs.symlink(secret, path.join(dir, name));
      const { error } = await detectError(dir);
      expect(error.message).toBe(`${name} is a symbolic link; Slipway reads build files only from regular files in the project.`);
    }
    const fifo = await release("fifo", {});
    await run("mkfifo", [path.join(fifo, "package.json")]);
    expect((await detectError(fifo)).error.message).toMatch(/package.json is not a regular file/);
  });
});
