// Builds in other languages against the same work done by hand, in the same run (`npm run bench:hosting --
// --languages python,go,dockerfile`):
//   first deploy   zip upload → the app answers through the router, on a new app (empty build cache), against the
//                  bare commands by hand in a fresh folder with fresh caches (make the environment, install or
//                  build, start the server, poll until it answers)
//   redeploy       a new release of the same app with the same dependency files (reused virtualenv, warm Go cache),
//                  against that first deploy
//   floor          by hand again in the same folder with what the first time installed or cached kept: the least a
//                  redeploy can cost
//   in the sandbox (Go) the same build and start through the local runtime driver directly, for a new app with an
//                  empty cache: what the sandbox itself costs (namespaces, cgroup, uid), which every deploy pays
// Goals (issue "Host apps in any language"): Python first ≤ 1.3× by hand and redeploy ≤ 0.25× first; Go first ≤ 1.3×
// by hand and warm redeploy ≤ 0.5× first; Dockerfile (RUNTIME=docker) first ≤ 1.3× `docker build` + `docker run`.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { pipIndexBuildSettings } from "../../test/helpers/pip-index.ts";
import { BUILD_CACHE_PATH } from "../../server/platform/runtime/paths.ts";
import { createLocalDriver } from "../../server/platform/runtime/local/driver.ts";
import type { RuntimeDriver } from "../../server/platform/runtime/types.ts";
import { percentile, zipOf, type HostingClient } from "./client.ts";

export interface LanguageCase {
  name: string;
  /** The project, answering `text` on GET /. */
  files(text: string): Record<string, string>;
  /** The same project by hand in `dir`, with the process's env; resolves with the ms from nothing to the first answer. */
  byHand(dir: string, env: NodeJS.ProcessEnv, text: string): Promise<number>;
  /**
   * The floor of a redeploy: by hand again in the same folder, with the new files and everything installed or cached
   * by byHand kept (the least a redeploy can do: what changed, then start).
   */
  byHandAgain(dir: string, env: NodeJS.ProcessEnv, text: string): Promise<number>;
  goals: { first: number; redeploy?: number };
  /** The first deploy's work done through the local runtime driver directly (new app, empty cache): ms to the first answer. */
  inSandbox?(driver: RuntimeDriver, work: SandboxWork, text: string): Promise<number>;
  /** The runtime the platform runs it on (default local). */
  runtime?: "docker";
}

const FLASK_APP = (text: string) => `from flask import Flask\napp = Flask(__name__)\n\n@app.get("/")\ndef index():\n    return ${JSON.stringify(text)}\n`;
const GO_APP = (text: string) =>
  `package main\n\nimport (\n\t"fmt"\n\t"net/http"\n\t"os"\n)\n\nfunc main() {\n\thttp.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, ${JSON.stringify(text)}) })\n\thttp.ListenAndServe(":"+os.Getenv("PORT"), nil)\n}\n`;

export const python: LanguageCase = {
  name: "Python (Flask + gunicorn)",
  files: (text) => ({ "requirements.txt": "flask\ngunicorn\n", Procfile: "web: gunicorn --workers 1 app:app\n", "app.py": FLASK_APP(text) }),
  async byHand(dir, env, text) {
    const began = performance.now();
    run(dir, env, "/usr/bin/python3", ["-m", "venv", ".venv"]);
    run(dir, env, ".venv/bin/pip", ["install", "-q", "-r", "requirements.txt"]);
    await serveUntil(dir, env, [".venv/bin/gunicorn", "--workers", "1", "app:app"], text);
    return performance.now() - began;
  },
  async byHandAgain(dir, env, text) {
    const began = performance.now();
    await serveUntil(dir, env, [".venv/bin/gunicorn", "--workers", "1", "app:app"], text);
    return performance.now() - began;
  },
  goals: { first: 1.3, redeploy: 0.25 },
};

export const go: LanguageCase = {
  name: "Go (net/http, go.mod)",
  files: (text) => ({ "go.mod": "module example.com/hello\n\ngo 1.19\n", "main.go": GO_APP(text) }),
  async byHand(dir, env, text) {
    const began = performance.now();
    run(dir, env, "/usr/bin/go", ["build", "-o", "hello", "."]);
    await serveUntil(dir, env, ["./hello"], text);
    return performance.now() - began;
  },
  async byHandAgain(dir, env, text) {
    return go.byHand(dir, env, text);
  },
  async inSandbox(driver, work, text) {
    const began = performance.now();
    const cache = (name: string) => `${BUILD_CACHE_PATH}/${name}`;
    const env = { GOCACHE: cache("go-build"), GOMODCACHE: cache("go-mod"), GOPATH: cache("go-path"), GOTOOLCHAIN: "local", GOPROXY: "off" };
    const argv = ["/usr/bin/go", "build", "-ldflags=-s -w", "-o", "hello", "."];
    const built = await driver.run({ appKey: work.appKey, workDir: work.dir, cacheDir: work.cache, argv, env, limits: BUILD_LIMITS, timeoutMs: 120_000, onOutput: () => {} });
    if (built.code !== 0) throw new Error(`go build in the sandbox failed: ${JSON.stringify(built)}`);
    const instance = await driver.start({ appKey: work.appKey, workDir: work.dir, argv: ["./hello"], env: {}, limits: APP_LIMITS, instanceId: randomUUID(), onOutput: () => {} });
    try {
      await pollUntil(instance.target, text);
      return performance.now() - began;
    } finally {
      await instance.stop(0);
    }
  },
  goals: { first: 1.3, redeploy: 0.5 },
};

/** The platform's defaults (APP_MEMORY_MB, APP_CPU_PERCENT, BUILD_MEMORY_MB, BUILD_CPU_PERCENT, APP_PIDS). */
const APP_LIMITS = { memoryBytes: 512 * 1024 ** 2, cpuPercent: 100, pids: 256 };
const BUILD_LIMITS = { memoryBytes: 1024 * 1024 ** 2, cpuPercent: 200, pids: 256 };

export interface SandboxWork {
  appKey: string;
  dir: string;
  cache: string;
}

const DOCKER_FROM = "slipway-bench/from:1";

/** A Dockerfile FROM an image made offline (the base image Slipway builds from this host's Node), built by the engine. */
export const dockerfile: LanguageCase = {
  name: "Dockerfile (classic builder, same engine)",
  runtime: "docker",
  files: (text) => ({
    // The text in a RUN early on: every deploy and every build by hand builds its own layers, none from another's cache.
    Dockerfile: [`FROM ${DOCKER_FROM}`, `RUN echo ${JSON.stringify(text)} > /tmp/version`, "COPY server.js /srv/server.js", "WORKDIR /srv", 'CMD ["node", "server.js"]', ""].join("\n"),
    "server.js": `require("http").createServer((q, s) => s.end(${JSON.stringify(text)})).listen(process.env.PORT);`,
  }),
  async byHand(dir, env, text) {
    const tag = `slipway-bench/by-hand:${process.pid}`;
    const began = performance.now();
    run(dir, { ...env, DOCKER_BUILDKIT: "0" }, "docker", ["build", "-q", "-t", tag, "."]);
    const port = await freePort();
    const id = spawnSync("docker", ["run", "-d", "--rm", "-e", "PORT=8080", "-p", `127.0.0.1:${port}:8080`, tag], { encoding: "utf8" }).stdout.trim();
    try {
      await pollUntil({ host: "127.0.0.1", port }, text);
      return performance.now() - began;
    } finally {
      spawnSync("docker", ["rm", "-f", id]);
      spawnSync("docker", ["rmi", "-f", tag]);
    }
  },
  byHandAgain(dir, env, text) {
    return dockerfile.byHand(dir, env, text);
  },
  goals: { first: 1.3 },
};

/** Tags the base image Slipway builds from this host's Node as the Dockerfile case's FROM (no registry here). */
export async function prepareDockerFrom(): Promise<void> {
  const { createDockerClient } = await import("../../server/platform/runtime/docker/client.ts");
  const { ensureBaseImage } = await import("../../server/platform/runtime/docker/base-image.ts");
  const docker = createDockerClient();
  const base = await ensureBaseImage(docker);
  const [repo, tag] = DOCKER_FROM.split(":");
  await docker.getImage(base).tag({ repo, tag });
}

export const LANGUAGES: Record<string, LanguageCase> = { python, go, dockerfile };

/** What the platform needs to install Python packages here: the machine's own pip index (as in the tests). */
export function languageBuildSettings(): Record<string, string> {
  return { ...pipIndexBuildSettings() };
}

const BY_HAND: Record<string, string> = {
  Python: "`python3 -m venv`, `pip install -r`, gunicorn",
  Go: "`go build`, the binary",
  Dockerfile: "`docker build` (classic builder), `docker run`",
};
const AGAIN: Record<string, string> = {
  Python: "the virtualenv kept: start gunicorn",
  Go: "the caches kept: `go build`, start",
  Dockerfile: "the engine's layer cache: `docker build`, `docker run`",
};

export async function benchLanguage(client: HostingClient, lang: LanguageCase, rounds: number): Promise<string> {
  const handMs: number[] = [];
  const handAgainMs: number[] = [];
  const firstMs: number[] = [];
  const redeployMs: number[] = [];
  const sandboxMs: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const [hand, handAgain] = await byHandInFreshFolder(lang, `by hand ${round}`);
    handMs.push(hand);
    handAgainMs.push(handAgain);
    if (lang.inSandbox) sandboxMs.push(await inSandboxFresh(lang, `in the sandbox ${round}`));
    const slug = `bench-${lang.name.split(" ")[0].toLowerCase()}-${process.pid}-${round}`;
    await client.createApp(slug);
    firstMs.push(await deployAndAnswer(client, slug, lang, `first ${round}`));
    redeployMs.push(await deployAndAnswer(client, slug, lang, `again ${round}`));
    const sandboxed = sandboxMs.length ? `, in the sandbox ${sandboxMs.at(-1)!.toFixed(0)} ms` : "";
    console.log(`  ${lang.name} round ${round}: by hand ${hand.toFixed(0)} ms (again ${handAgain.toFixed(0)} ms)${sandboxed}, first deploy ${firstMs.at(-1)!.toFixed(0)} ms, redeploy ${redeployMs.at(-1)!.toFixed(0)} ms`);
  }
  const hand = percentile(handMs, 50);
  const handAgain = percentile(handAgainMs, 50);
  const first = percentile(firstMs, 50);
  const redeploy = percentile(redeployMs, 50);
  const verdict = (ratio: number, goal: number) => `${ratio.toFixed(2)}× (goal ≤ ${goal}×: ${ratio <= goal ? "met" : "missed"})`;
  return [
    `### ${lang.name}: median of ${rounds} rounds`,
    "",
    "| | ms | ratio |",
    "|---|---:|---|",
    `| by hand: ${BY_HAND[lang.name.split(" ")[0]]}, first answer | ${hand.toFixed(0)} | 1 |`,
    `| first deploy (new app, empty build cache): upload → answer | ${first.toFixed(0)} | ${verdict(first / hand, lang.goals.first)} × by hand |`,
    `| redeploy, same dependency files | ${redeploy.toFixed(0)} | ${lang.goals.redeploy ? verdict(redeploy / first, lang.goals.redeploy) : (redeploy / first).toFixed(2) + "× (no goal)"} × first deploy |`,
    `| floor of a redeploy, by hand again in the same folder (${AGAIN[lang.name.split(" ")[0]]}) | ${handAgain.toFixed(0)} | ${(handAgain / hand).toFixed(2)}× by hand |`,
    ...(sandboxMs.length
      ? [`| floor of a first deploy in the sandbox: the same build and start through the local runtime driver, new app, empty cache | ${percentile(sandboxMs, 50).toFixed(0)} | ${(percentile(sandboxMs, 50) / hand).toFixed(2)}× by hand; the first deploy is ${(first / percentile(sandboxMs, 50)).toFixed(2)}× it |`]
      : []),
    "",
    `Rounds (by hand / by hand again / first / redeploy, ms): ${handMs.map((h, i) => `${h.toFixed(0)}/${handAgainMs[i].toFixed(0)}/${firstMs[i].toFixed(0)}/${redeployMs[i].toFixed(0)}`).join(", ")}.`,
    "",
  ].join("\n");
}

async function deployAndAnswer(client: HostingClient, slug: string, lang: LanguageCase, text: string): Promise<number> {
  const zip = await zipOf(lang.files(text));
  const began = performance.now();
  const deployment = await client.upload(slug, zip);
  // As by hand, the app is polled every 2 ms only once it starts (polling the router all through the build would take
  // CPU from the build on this 2-core machine); the start is told by the app subscription the moment it happens.
  const started = await client.untilStatus(slug, deployment.id, ["STARTING", "LIVE", "FAILED"]);
  if (started.status === "FAILED") throw new Error(`${lang.name} deploy ${text}: ${started.status} ${started.error}`);
  await client.waitForAnswer(slug, text, 300_000);
  const ms = performance.now() - began;
  const steps = (await client.waitForSettled(slug, deployment.id)).steps;
  console.log(`    ${text}: ${ms.toFixed(0)} ms (${steps.map((step) => `${step.name} ${step.ms}`).join(", ")})`);
  return ms;
}


/**
 * A fresh folder and fresh caches (pip's, Go's), as on a machine that never built this project; then, in the same
 * folder, a new version of the app by hand again (the redeploy's floor). Resolves with both times.
 */
async function byHandInFreshFolder(lang: LanguageCase, text: string): Promise<[number, number]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-by-hand-"));
  try {
    for (const [name, contents] of Object.entries(lang.files(text))) fs.writeFileSync(path.join(dir, name), contents);
    const pip = JSON.parse(pipIndexBuildSettings().BUILD_ENV) as Record<string, string>;
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: dir,
      ...pip,
      PIP_CACHE_DIR: path.join(dir, ".cache/pip"),
      PIP_DISABLE_PIP_VERSION_CHECK: "1",
      GOCACHE: path.join(dir, ".cache/go-build"),
      GOMODCACHE: path.join(dir, ".cache/go-mod"),
      GOPATH: path.join(dir, ".go"),
      GOTOOLCHAIN: "local",
      GOPROXY: "off",
    };
    const first = await lang.byHand(dir, env, text);
    for (const [name, contents] of Object.entries(lang.files(`${text} again`))) fs.writeFileSync(path.join(dir, name), contents);
    return [first, await lang.byHandAgain(dir, env, `${text} again`)];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function run(cwd: string, env: NodeJS.ProcessEnv, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd, env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr}`);
}

/** The first deploy's work through a local runtime driver of its own, for a new app (its namespace, cgroup and uid) with an empty cache. */
async function inSandboxFresh(lang: LanguageCase, text: string): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-in-sandbox-"));
  const driver = await createLocalDriver({ dataDir, allowPartial: false });
  try {
    const work = { appKey: `bench-sandbox-${randomUUID()}`, dir: path.join(dataDir, "release"), cache: path.join(dataDir, "cache") };
    fs.mkdirSync(work.dir);
    for (const [name, contents] of Object.entries(lang.files(text))) fs.writeFileSync(path.join(work.dir, name), contents);
    return await lang.inSandbox!(driver, work, text);
  } finally {
    await driver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Starts the server on a free port, polls GET / every 2 ms until it answers `text`, then stops it. */
async function serveUntil(cwd: string, env: NodeJS.ProcessEnv, argv: string[], text: string): Promise<void> {
  const port = await freePort();
  const child = spawn(argv[0], argv.slice(1), { cwd, env: { ...env, PORT: String(port) }, stdio: "ignore", detached: true });
  try {
    await pollUntil({ host: "127.0.0.1", port }, text);
  } finally {
    process.kill(-child.pid!, "SIGKILL");
  }
}

async function pollUntil({ host, port }: { host: string; port: number }, text: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const body = await fetch(`http://${host}:${port}/`).then((r) => r.text(), () => null);
    if (body === text) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`nothing answered ${JSON.stringify(text)} on port ${port}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once("error", reject);
  });
}
