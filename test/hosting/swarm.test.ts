// RUNTIME=swarm on a single-node swarm: a real deploy through the engine becomes a Swarm service whose healthy
// tasks are the router's upstreams; a redeploy under load rolls out start-first without a failed request; a
// release that never gets healthy is rolled back by Swarm (the old one keeps serving, the deploy FAILED with a
// reason); scaling changes the upstreams; task output reaches the runtime log; stop, restart and delete.
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, uploadZip, waitFor, waitForDeployment, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { TEST_RUNTIME } from "../helpers/runtime.ts";
import { docker, ensureSwarm, removeServices } from "../helpers/swarm.ts";

const unavailable = TEST_RUNTIME !== "swarm" ? "runs with SLIPWAY_TEST_RUNTIME=swarm (npm run test:swarm)" : await ensureSwarm();
if (unavailable) console.warn(`SKIPPED swarm runtime tests: ${unavailable}`);

const app = (version: string, extra = "") => ({
  "package.json": JSON.stringify({ name: "t", version: "1.0.0", scripts: { start: "node server.js" } }),
  "server.js": `${extra}console.log("booting ${version}");
require("http").createServer((q, s) => s.end("${version}")).listen(process.env.PORT);
process.on("SIGTERM", () => { console.log("bye ${version}"); process.exit(0); });`,
});

describe.skipIf(!!unavailable)(`RUNTIME=swarm${unavailable ? ` (skipped: ${unavailable})` : ""}`, () => {
  let server: TestServer;
  let owner: Client;
  const slug = `sw${process.pid}`;
  const get = (path = "/") => requestApp(server.url, `${slug}.localhost`, path);
  const upstreams = () => {
    const target = server.slipway.platform.engine.routes.lookup(slug);
    return target.kind === "proxy" ? target.upstreams : [];
  };

  beforeAll(async () => {
    server = await startServer({ RUNTIME: "swarm", DEFAULT_MAX_APPS: "10", DEFAULT_REQUESTS_PER_MINUTE: "1000000", START_TIMEOUT_SECONDS: "10" });
    owner = new Client(server.url);
    await owner.signup();
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    const dataDir = server?.config.dataDir;
    await server?.close();
    if (dataDir) await removeServices(dataDir);
  }, 60_000);

  it("deploys a zip as a Swarm service: LIVE, answering through the router, its output in the runtime log", async () => {
    const deployment = await deploy(owner, slug, await zipFolder(null, app("v1")));
    expect(deployment.status, deployment.error).toBe("LIVE");
    expect((await get()).body).toBe("v1");
    const [service] = await docker.listServices({ filters: { name: [`slipway-${slug}`] } } as object);
    const spec = service.Spec!.TaskTemplate as { ContainerSpec: Record<string, unknown>; Resources: { Limits: Record<string, number> } };
    expect(spec.ContainerSpec).toMatchObject({ User: "10001:10001", ReadOnly: true, CapabilityDrop: ["ALL"] });
    expect(spec.Resources.Limits.Pids).toBeGreaterThan(0);
    expect(service.Spec!.UpdateConfig).toMatchObject({ Order: "start-first", FailureAction: "rollback" });
    const build = await owner.get(`/api/apps/${slug}/logs?kind=build&limit=1000`);
    const lines = build.body.map((l: { line: string }) => l.line).join("\n");
    expect(lines).toMatch(/Creating the Swarm service slipway-/);
    expect(lines).toMatch(/passed its health check/);
    await waitFor(async () => (await owner.get(`/api/apps/${slug}/logs?limit=100`)).body.some((l: { line: string }) => l.line === "booting v1"), 15_000, "the task's output");
  }, 120_000);

  it("redeploys start-first under load without a failed request", async () => {
    let failures = 0;
    let answered = 0;
    let loading = true;
    const seen = new Set<string>();
    const load = (async () => {
      while (loading) {
        const answer = await get().catch((error: Error) => ({ status: 0, body: error.message }));
        if (answer.status === 200) seen.add(answer.body);
        else failures += 1;
        answered += 1;
      }
    })();
    const deployment = await deploy(owner, slug, await zipFolder(null, app("v2")));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    loading = false;
    await load;
    expect(deployment.status, deployment.error).toBe("LIVE");
    expect(answered).toBeGreaterThan(20);
    expect(failures).toBe(0);
    expect([...seen].sort()).toEqual(["v1", "v2"]);
    expect((await get()).body).toBe("v2");
  }, 120_000);

  it("rolls back a release that never gets healthy: the old one keeps serving, the deploy FAILED with a reason", async () => {
    const res = await uploadZip(owner, slug, await zipFolder(null, { ...app("v3"), "server.js": 'console.log("no port"); setInterval(() => {}, 1000);' }));
    expect(res.status).toBe(202);
    const deployment = await waitForDeployment(owner, slug, res.body.id, 120_000);
    expect(deployment.status).toBe("FAILED");
    expect(deployment.error).toMatch(/health check|did not answer HTTP/);
    expect(deployment.error).toMatch(/rolled the service back|previous release keeps serving/);
    // What its tasks wrote before Swarm gave up stays with the deployment, as on the other runtimes.
    expect(deployment.failureOutput).toContain("no port");
    expect((await get()).body).toBe("v2");
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("RUNNING");
  }, 150_000);

  it("scales: the route gets one upstream per healthy task", async () => {
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { instances: 2 } })).status).toBe(200);
    await waitFor(async () => upstreams().length === 2, 30_000, "two upstreams");
    const ports = new Set(upstreams().map((u) => u.port));
    expect(ports.size).toBe(2);
    expect((await get()).body).toBe("v2");
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { instances: 1 } })).status).toBe(200);
    await waitFor(async () => upstreams().length === 1, 30_000, "one upstream");
  }, 90_000);

  it("shows a crashed app CRASHED while no task serves, logs why, and RUNNING again once Swarm restarted it", async () => {
    const crasher = `${slug}c`;
    expect((await owner.post("/api/apps", { slug: crasher })).status).toBe(201);
    const js = 'require("http").createServer((q, s) => { s.end("alive"); if (q.url === "/crash") process.exit(1); }).listen(process.env.PORT);';
    expect((await deploy(owner, crasher, await zipFolder(null, { ...app("c"), "server.js": js }))).status).toBe("LIVE");
    await requestApp(server.url, `${crasher}.localhost`, "/crash").catch(() => {});
    await waitFor(async () => (await owner.get(`/api/apps/${crasher}`)).body.status === "CRASHED", 10_000, "CRASHED");
    await waitFor(async () => (await owner.get(`/api/apps/${crasher}`)).body.status === "RUNNING", 30_000, "RUNNING again");
    expect((await requestApp(server.url, `${crasher}.localhost`)).body).toBe("alive");
    const lines = (await owner.get(`/api/apps/${crasher}/logs?limit=1000`)).body.map((l: { line: string }) => l.line);
    expect(lines).toContainEqual(expect.stringMatching(/^Crashed: task \w+ exited \(exit code 1\)\. Swarm starts another/));
    expect((await owner.request("DELETE", `/api/apps/${crasher}`)).status).toBe(204);
  }, 90_000);

  it("keeps apps apart: a task reaches neither another app's published port nor the node's services", async () => {
    const [target] = upstreams();
    const addresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).filter((a) => a.family === "IPv4" && !a.internal).map((a) => a.address));
    const probes = [...addresses.map((address) => `${address}:${target.port}`), ...addresses.map((address) => `${address}:${new URL(server.url).port}`)];
    const prober = `${slug}p`;
    expect((await owner.post("/api/apps", { slug: prober })).status).toBe(201);
    const js = `const net = require("net"); const results = {};
for (const t of ${JSON.stringify(probes)}) { const [h, p] = t.split(":"); const s = net.connect(+p, h);
  s.on("connect", () => { results[t] = "connected"; s.destroy(); }); s.on("error", (e) => (results[t] = e.code)); setTimeout(() => { results[t] ??= "timeout"; s.destroy(); }, 1500); }
require("http").createServer((q, s) => s.end(JSON.stringify(results))).listen(process.env.PORT);`;
    const deployment = await deploy(owner, prober, await zipFolder(null, { ...app("p"), "server.js": js }));
    expect(deployment.status, deployment.error).toBe("LIVE");
    // Each probe ends connected, refused or timed out (1.5 s) on its own: wait until all have.
    const results = await waitFor(async () => {
      const now = JSON.parse((await requestApp(server.url, `${prober}.localhost`)).body) as Record<string, string>;
      return Object.keys(now).length === probes.length ? now : null;
    }, 15_000, "every probe's result");
    expect(Object.keys(results).sort()).toEqual([...probes].sort());
    for (const [probe, result] of Object.entries(results)) expect(result, probe).not.toBe("connected");
    expect((await owner.request("DELETE", `/api/apps/${prober}`)).status).toBe(204);
  }, 120_000);

  it("rolls back to an earlier deployment, restarts, stops (scale to 0) and deletes (service and network gone)", async () => {
    const app1 = (await owner.get(`/api/apps/${slug}`)).body;
    const first = app1.deployments.find((d: { status: string }) => d.status === "SUPERSEDED");
    const rollback = await owner.post(`/api/apps/${slug}/rollback`, { deployment: first.id });
    expect(rollback.status).toBe(202);
    expect((await waitForDeployment(owner, slug, rollback.body.id, 120_000)).status).toBe("LIVE");
    expect((await get()).body).toBe("v1");

    expect((await owner.post(`/api/apps/${slug}/restart`, {})).status).toBe(200);
    expect((await get()).body).toBe("v1");

    expect((await owner.post(`/api/apps/${slug}/stop`, {})).status).toBe(200);
    expect((await get()).status).toBe(503);
    const [service] = await docker.listServices({ filters: { name: [`slipway-${slug}`] } } as object);
    expect((service.Spec!.Mode as { Replicated: { Replicas: number } }).Replicated.Replicas).toBe(0);

    expect((await owner.request("DELETE", `/api/apps/${slug}`)).status).toBe(204);
    expect(await docker.listServices({ filters: { name: [`slipway-${slug}`] } } as object)).toEqual([]);
  }, 240_000);
});
