// RUNTIME=swarm with REGISTRY_URL: release images are pushed to the registry and services name them there, so
// a node without the image pulls it. Tested with Debian's docker-registry on a free 127.0.0.1 port (dockerd
// allows plain HTTP to 127.0.0.1 registries by default): a new task started after the local copy was removed
// pulls it back.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, waitFor, zipFolder } from "../helpers/apps.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { TEST_RUNTIME } from "../helpers/runtime.ts";
import { docker, ensureSwarm, removeServices } from "../helpers/swarm.ts";

const REGISTRY = "/usr/bin/docker-registry";
const unavailable =
  TEST_RUNTIME !== "swarm"
    ? "runs with SLIPWAY_TEST_RUNTIME=swarm (npm run test:swarm)"
    : ((await ensureSwarm()) ?? (fs.existsSync(REGISTRY) ? null : `${REGISTRY} is not installed (apt-get install docker-registry)`));
if (unavailable) console.warn(`SKIPPED swarm registry tests: ${unavailable}`);

async function startRegistry(): Promise<{ address: string; process: ChildProcess; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-registry-"));
  const port = await freePort();
  const config = path.join(dir, "config.yml");
  fs.writeFileSync(config, `version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:${port}\n`);
  const child = spawn(REGISTRY, ["serve", config], { stdio: "ignore" });
  const address = `127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`http://${address}/v2/`).catch(() => null))?.status === 200, 15_000, "the registry");
  return { address, process: child, dir };
}

describe.skipIf(!!unavailable)(`RUNTIME=swarm with REGISTRY_URL${unavailable ? ` (skipped: ${unavailable})` : ""}`, () => {
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  let server: TestServer;
  let owner: Client;
  const slug = `swr${process.pid}`;

  beforeAll(async () => {
    registry = await startRegistry();
    server = await startServer({ RUNTIME: "swarm", REGISTRY_URL: registry.address, START_TIMEOUT_SECONDS: "10", DEFAULT_REQUESTS_PER_MINUTE: "1000000" });
    owner = new Client(server.url);
    await owner.signup();
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    const dataDir = server?.config.dataDir;
    await server?.close();
    if (dataDir) await removeServices(dataDir);
    registry?.process.kill();
    if (registry) fs.rmSync(registry.dir, { recursive: true, force: true });
  }, 60_000);

  it("pushes the release image, runs the service from the registry's name, and a task pulls it", async () => {
    const files = { "package.json": JSON.stringify({ name: "t", version: "1.0.0" }), "server.js": 'require("http").createServer((q, s) => s.end("pulled")).listen(process.env.PORT);' };
    const deployment = await deploy(owner, slug, await zipFolder(null, files));
    expect(deployment.status, deployment.error).toBe("LIVE");
    const [service] = await docker.listServices({ filters: { name: [`slipway-${slug}`] } } as object);
    const image = (service.Spec!.TaskTemplate as { ContainerSpec: { Image: string } }).ContainerSpec.Image;
    expect(image).toBe(`${registry.address}/slipway/${slug}:${deployment.id}`);
    const catalog = (await (await fetch(`http://${registry.address}/v2/_catalog`)).json()) as { repositories: string[] };
    expect(catalog.repositories).toContain(`slipway/${slug}`);

    // Without the local copy, a new task can only run what it pulls from the registry.
    await docker.getImage(image).remove({ noprune: true }).catch(() => {});
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { instances: 2 } })).status).toBe(200);
    const engine = server.slipway.platform.engine;
    await waitFor(async () => {
      const target = engine.routes.lookup(slug);
      return target.kind === "proxy" && target.upstreams.length === 2;
    }, 60_000, "a second task from the pulled image");
    expect(await docker.getImage(image).inspect().then(() => true, () => false)).toBe(true);
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toBe("pulled");
    expect((await owner.request("DELETE", `/api/apps/${slug}`)).status).toBe(204);
  }, 180_000);
});
