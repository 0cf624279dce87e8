// Dockerfile apps deployed for real on a container runtime: the image built by the engine (FROM an image made offline
// from Slipway's base image, a COPY, a RUN), its steps streamed into the build log, its layers cached between
// deploys, its own CMD run in Slipway's sandbox (uid 10001 though it says USER root, PORT set), served through the
// router; a failing RUN fails the deploy with its output while the previous release keeps serving; a FROM image the
// engine lacks comes from REGISTRY_URL (Debian's docker-registry on a free 127.0.0.1 port), another app's release
// image is refused. Runs with SLIPWAY_TEST_RUNTIME=docker or swarm (npm run test:docker, test:swarm); skipped, with
// the reason in its name, on the local runtime.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBaseImage } from "../../server/platform/runtime/docker/base-image.ts";
import { createDockerClient, followProgress } from "../../server/platform/runtime/docker/client.ts";
import { deploy, requestApp, waitFor, waitForDeployment, zipFolder } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { TEST_RUNTIME, dockerUnavailable } from "../helpers/runtime.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";

const FROM = "slipway-test/from:1";
/** Only in the registry: the engine pulls it through REGISTRY_URL. */
const FROM_REGISTRY = "slipway-test/from-registry:1";
const REGISTRY = "/usr/bin/docker-registry";

async function startRegistry(): Promise<{ address: string; process: ChildProcess; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-registry-"));
  const port = await freePort();
  const config = path.join(dir, "config.yml");
  fs.writeFileSync(config, `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: 127.0.0.1:${port}\n`);
  const child = spawn(REGISTRY, ["serve", config], { stdio: "ignore" });
  const address = `127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`http://${address}/v2/`).catch(() => null))?.status === 200, 15_000, "the registry");
  return { address, process: child, dir };
}

const SERVER = `const fs = require("fs");
require("http").createServer((req, res) => res.end(JSON.stringify({
  uid: process.getuid(), cwd: process.cwd(), port: process.env.PORT, built: fs.readFileSync("/srv/built.txt", "utf8").trim(), version: process.env.VERSION,
}))).listen(process.env.PORT);
`;

/** A release phase and no web: line: the image's CMD serves, the release phase runs in the image too. */
const PROCFILE = `release: node -e "console.log('release in', process.cwd(), require('fs').readFileSync('built.txt', 'utf8').trim(), process.getuid())"\n`;

/** FROM the offline image, a COPY, a RUN that writes what the server reads, USER root, the server as CMD. */
function dockerfile(run = "echo step-output-$VERSION && echo built-$VERSION > /srv/built.txt"): string {
  return [`FROM ${FROM}`, "USER root", "ARG VERSION=none", "ENV VERSION=$VERSION", "COPY server.js /srv/server.js", `RUN ${run}`, "WORKDIR /srv", 'CMD ["node", "server.js"]', ""].join("\n");
}

const unavailable = TEST_RUNTIME === "local" ? "runs with SLIPWAY_TEST_RUNTIME=docker or swarm (npm run test:docker, test:swarm)" : await dockerUnavailable();
if (unavailable) console.warn(`dockerfile builder tests SKIPPED: ${unavailable}`);

describe.skipIf(unavailable)(`dockerfile builder on the ${TEST_RUNTIME} runtime${unavailable ? ` (SKIPPED: ${unavailable})` : ""}`, () => {
  const docker = createDockerClient(process.env.DOCKER_HOST);
  let server: TestServer;
  let owner: Client;
  let registry: Awaited<ReturnType<typeof startRegistry>> | null = null;

  beforeAll(async () => {
    // No Docker Hub here: the FROM images are made offline, from the base image Slipway builds from this host's Node.
    const base = await ensureBaseImage(docker);
    await docker.getImage(base).tag({ repo: FROM.split(":")[0], tag: FROM.split(":")[1] });
    if (fs.existsSync(REGISTRY)) {
      registry = await startRegistry();
      const [repo, tag] = FROM_REGISTRY.split(":");
      await docker.getImage(base).tag({ repo: `${registry.address}/${repo}`, tag });
      const push = await docker.getImage(`${registry.address}/${FROM_REGISTRY}`).push({ authconfig: {} });
      await followProgress(docker, push as Readable);
      await docker.getImage(`${registry.address}/${FROM_REGISTRY}`).remove({ noprune: true });
      await docker.getImage(FROM_REGISTRY).remove({ noprune: true }).catch(() => {});
    }
    server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", ...(registry ? { REGISTRY_URL: registry.address } : {}) });
    owner = new Client(server.url);
    await owner.signup();
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await docker.getImage(FROM_REGISTRY).remove({ noprune: true }).catch(() => {});
    registry?.process.kill();
    if (registry) fs.rmSync(registry.dir, { recursive: true, force: true });
  });

  async function buildLog(slug: string, deployment: string): Promise<string> {
    const res = await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${deployment}&limit=1000`);
    return res.body.map((l: { line: string }) => l.line).join("\n");
  }

  async function answer(slug: string) {
    const res = await requestApp(server.url, `${slug}.localhost`);
    expect(res.status, res.body).toBe(200);
    return JSON.parse(res.body) as { uid: number; cwd: string; port: string; built: string; version: string };
  }

  it("builds the image, runs its CMD as uid 10001 on PORT, reuses the layer cache, and keeps serving when a RUN fails", async () => {
    const slug = `df-${process.pid}`;
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    expect((await owner.post(`/api/apps/${slug}/env`, { VERSION: "1" })).status).toBe(200);

    const first = await deploy(owner, slug, await zipFolder(null, { Dockerfile: dockerfile(), "server.js": SERVER, Procfile: PROCFILE }));
    const firstLog = await buildLog(slug, first.id);
    expect(first.status, firstLog).toBe("LIVE");
    expect(first.builder).toBe("dockerfile");
    // The builder's steps and the RUN's own output, line by line; the app's env var reached its ARG.
    expect(firstLog).toMatch(/^Step 3\/\d+ : ARG VERSION=none$/m);
    expect(firstLog).toMatch(/^Step 6\/\d+ : RUN echo step-output/m);
    expect(firstLog).toMatch(/^step-output-1$/m);
    expect(firstLog).toMatch(/^release in \/srv built-1 10001$/m);
    // The docker runtime starts instances itself (a Swarm service runs its tasks: the rollout steps say so).
    if (TEST_RUNTIME === "docker") expect(firstLog).toContain("The image's own command (CMD/ENTRYPOINT)");
    const live = await answer(slug);
    expect(live).toEqual({ uid: 10001, cwd: "/srv", port: "8080", built: "built-1", version: "1" });

    // The same project again: every step comes from the engine's layer cache.
    const second = await deploy(owner, slug, await zipFolder(null, { Dockerfile: dockerfile(), "server.js": SERVER, Procfile: PROCFILE }));
    const secondLog = await buildLog(slug, second.id);
    expect(second.status, secondLog).toBe("LIVE");
    expect(secondLog).toMatch(/Using cache/);
    expect(secondLog).not.toMatch(/^step-output-1$/m);
    expect((await answer(slug)).built).toBe("built-1");

    // A RUN that exits non-zero: the deploy fails with its output, the live release keeps answering.
    const failing = await deploy(owner, slug, await zipFolder(null, { Dockerfile: dockerfile("echo about-to-fail && exit 3"), "server.js": SERVER }));
    const failingLog = await buildLog(slug, failing.id);
    expect(failing.status, failingLog).toBe("FAILED");
    expect(failing.builder).toBe("dockerfile");
    expect(failingLog).toMatch(/^about-to-fail$/m);
    expect(failingLog).toMatch(/returned a non-zero code: 3/);
    expect((await answer(slug)).built).toBe("built-1");

    // A rollback to the first release starts its image again, as it was built: no build.
    const rollback = await owner.post(`/api/apps/${slug}/rollback`, { deployment: first.id });
    expect(rollback.status).toBe(202);
    const restarted = await waitForDeployment(owner, slug, rollback.body.id);
    expect(restarted.status, await buildLog(slug, rollback.body.id)).toBe("LIVE");
    expect(restarted.steps.map((step: { name: string }) => step.name)).not.toContain("build");
    expect(await answer(slug)).toEqual(live);
  }, 300_000);

  it("honours .dockerignore, and a Procfile web: line replaces the image's CMD", async () => {
    const slug = `df-${process.pid}-procfile`;
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    const files = {
      Dockerfile: [`FROM ${FROM}`, "COPY . /app/", 'CMD ["node", "-e", "process.exit(1)"]', ""].join("\n"),
      ".dockerignore": "secret.txt\nignored/\n",
      "secret.txt": "not for the image",
      "ignored/file.txt": "not for the image either",
      Procfile: "web: node server.js\n",
      "server.js": `const fs = require("fs"); require("http").createServer((req, res) => res.end(fs.readdirSync("/app").sort().join(","))).listen(process.env.PORT);`,
    };
    const deployment = await deploy(owner, slug, await zipFolder(null, files));
    expect(deployment.status, await buildLog(slug, deployment.id)).toBe("LIVE");
    const res = await requestApp(server.url, `${slug}.localhost`);
    expect(res.body).toBe(".dockerignore,Dockerfile,Procfile,server.js");
  }, 300_000);

  it.skipIf(!fs.existsSync(REGISTRY))("pulls a FROM image the engine lacks through REGISTRY_URL, and refuses another app's release image", async () => {
    const slug = `df-${process.pid}-registry`;
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    const files = (from: string) => ({
      Dockerfile: [`FROM ${from}`, "COPY server.js /app/", 'CMD ["node", "server.js"]', ""].join("\n"),
      "server.js": `require("http").createServer((req, res) => res.end("from the registry")).listen(process.env.PORT);`,
    });
    const pulled = await deploy(owner, slug, await zipFolder(null, files(FROM_REGISTRY)));
    const pulledLog = await buildLog(slug, pulled.id);
    expect(pulled.status, pulledLog).toBe("LIVE");
    expect(pulledLog).toContain(`${FROM_REGISTRY} is not on the engine: pulling ${registry!.address}/${FROM_REGISTRY} (REGISTRY_URL)`);
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toBe("from the registry");

    const missing = await deploy(owner, slug, await zipFolder(null, files("slipway-test/nowhere:1")));
    expect(missing.status).toBe("FAILED");
    expect(missing.error).toContain("slipway-test/nowhere:1 is neither on the engine nor at REGISTRY_URL");

    const stolen = await deploy(owner, slug, await zipFolder(null, files(`slipway/${slug}:${pulled.id}`)));
    expect(stolen.status).toBe("FAILED");
    expect(stolen.error).toContain(`Dockerfile builds from slipway/${slug}:${pulled.id.toLowerCase()}, a release image of Slipway's`);
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toBe("from the registry");
  }, 300_000);
});
