// The platform killed with SIGKILL (no shutdown at all), or stopped with SIGTERM, and started again on the same data:
// the deployment it was building is marked FAILED, never left BUILDING; the app that was running comes back: the
// very process that ran is adopted (no restart) on every runtime (local: its bubblewrap sandbox outlives the
// platform): it answers as before, its output reaches the app's log again, its workers go on working, and stop,
// restart and redeploy work on it. A container whose env changed while no platform ran is not adopted (docker): a fresh one
// with the new env replaces it, and the old one is gone; of a scaled app, each instance still running is adopted and
// one that died meanwhile starts again.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "../../server/db/client.ts";
import { keptRoot, readRecords } from "../../server/platform/runtime/local/kept.ts";
import { processStartTime } from "../../server/platform/runtime/local/slots.ts";
import { LABEL, createDockerClient, platformId } from "../../server/platform/runtime/docker/client.ts";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, uploadZip, waitFor, webInstances, zipFolder } from "../helpers/apps.ts";
import { createPostgresDatabase, freePort } from "../helpers/server.ts";
import { startPlatform, stopPlatform } from "../helpers/platform-process.ts";
import { TEST_RUNTIME, removeDockerLeftovers, removeLocalLeftovers, runtimeEnv } from "../helpers/runtime.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The host's processes whose command line contains `text`. */
function processesRunning(text: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const nodeApp = (js: string, pkg: Record<string, unknown> = {}) => ({
  "package.json": JSON.stringify({ name: "t", version: "1.0.0", ...pkg }),
  "server.js": js,
});
// Answers with a number drawn at start (a new process answers another one), and logs every request's path.
const SURVIVOR = `const started = Math.random(); require("http").createServer((q, s) => { console.log("request " + q.url); s.end("alive " + started); }).listen(process.env.PORT);`;
const GREETER = `const started = Math.random(); require("http").createServer((q, s) => s.end(process.env.GREETING + " " + started)).listen(process.env.PORT);`;

describe("a platform killed and started again", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-restart-"));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  cleanups.push(() => (TEST_RUNTIME === "local" ? removeLocalLeftovers(dataDir) : removeDockerLeftovers(dataDir)));
  let owner: Client;
  let env: Record<string, string>;
  let base: string;
  let platform: ChildProcess;
  let before: string;

  const answer = (slug: string) =>
    waitFor(async () => {
      const res = await requestApp(base, `${slug}.localhost`).catch(() => null);
      return res?.status === 200 && res.body;
    }, 30_000, `${slug} to answer`);
  const appStatus = async (slug: string) => (await owner.get(`/api/apps/${slug}`)).body.status;

  it("fails the interrupted deployment and adopts the running app", async () => {
    const database = process.env.TEST_DATABASE === "postgres" ? await createPostgresDatabase() : null;
    if (database) cleanups.push(database.drop);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    owner = new Client(base);
    env = { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: base, DEFAULT_REQUESTS_PER_MINUTE: "100000", ...(database ? { DATABASE_URL: database.url } : {}), ...runtimeEnv() };

    platform = await startPlatform(env, cleanups);
    await owner.signup();
    await owner.post("/api/apps", { slug: "survivor" });
    await owner.post("/api/apps", { slug: "interrupted" });
    expect((await deploy(owner, "survivor", await zipFolder(null, nodeApp(SURVIVOR)))).status).toBe("LIVE");
    before = (await requestApp(base, "survivor.localhost")).body;
    expect(before).toMatch(/^alive/);
    const slow = await uploadZip(owner, "interrupted", await zipFolder(null, nodeApp("", { scripts: { build: "sleep 59.7" } })));
    await waitFor(async () => (await owner.get("/api/apps/interrupted")).body.deployments[0].status === "BUILDING", 30_000, "BUILDING");

    await stopPlatform(platform, "SIGKILL", base);
    platform = await startPlatform(env, cleanups);
    const interrupted = (await owner.get("/api/apps/interrupted")).body;
    expect(interrupted.deployments[0]).toMatchObject({ id: slow.body.id, status: "FAILED", error: expect.stringMatching(/platform restarted/) });
    expect(interrupted.status).toBe("FAILED");
    // Its address says why, from the deployment's error.
    const page = await requestApp(base, "interrupted.localhost");
    expect([page.status, page.body]).toEqual([503, expect.stringContaining("Deploy failed: Interrupted: the platform restarted during this deployment.")]);
    const after = await answer("survivor");
    expect(after).toMatch(/^alive/);
    expect(after).toBe(before);
    expect(await appStatus("survivor")).toBe("RUNNING");
    // Nothing of the interrupted build is left running.
    if (TEST_RUNTIME === "local") expect(processesRunning("sleep 59.7")).toEqual([]);
    else expect(await containers("interrupted")).toEqual([]);
  }, 150_000);

  it("keeps the app's log flowing after the restart", async () => {
    const marker = `/after-restart-${Date.now()}`;
    expect((await requestApp(base, "survivor.localhost", marker)).status).toBe(200);
    await waitFor(async () => {
      const lines = (await owner.get("/api/apps/survivor/logs?limit=1000")).body as { line: string }[];
      return lines.some((l) => l.line === `request ${marker}`);
    }, 15_000, "the request's line in the app's log");
  });

  it("keeps the app's workers running through the restart: the same process goes on working", async () => {
    await owner.post("/api/apps", { slug: "busy" });
    const files = {
      ...nodeApp(`require("http").createServer((q, s) => { let w = ""; try { w = require("fs").readFileSync("/data/worker", "utf8"); } catch {} s.end(w); }).listen(process.env.PORT);`),
      Procfile: "web: node server.js\nworker: node worker.js\n",
      "worker.js": `const started = Math.random(); let ticks = 0; setInterval(() => require("fs").writeFileSync("/data/worker", started + " " + ++ticks), 100);`,
    };
    expect((await deploy(owner, "busy", await zipFolder(null, files))).status).toBe("LIVE");
    const work = () => waitFor(async () => {
      const [started, ticks] = (await answer("busy")).split(" ");
      return ticks ? { started, ticks: Number(ticks) } : null;
    }, 30_000, "the worker's work");
    const workerOf = async () => ((await owner.get("/api/apps/busy/processes")).body as { type: string; instances: { instanceId: string; state: string }[] }[]).find((p) => p.type === "worker")!.instances;
    const before = await work();
    // Swarm's tasks are polled: the worker shows as running (with its task id) a moment after it works.
    const [instance] = await waitFor(async () => {
      const instances = await workerOf();
      return instances[0]?.instanceId ? instances : null;
    }, 15_000, "the worker listed as running");

    await stopPlatform(platform, "SIGKILL", base);
    platform = await startPlatform(env, cleanups);
    const goesOn = await waitFor(async () => {
      const now = await work();
      return now.ticks > before.ticks + 2 && now;
    }, 30_000, "the worker to go on");
    expect(goesOn.started).toBe(before.started);
    expect(await workerOf()).toEqual([expect.objectContaining({ instanceId: instance.instanceId, state: "RUNNING" })]);
    const lines = (await owner.get("/api/apps/busy/logs?limit=1000")).body as { line: string }[];
    expect(lines.map((l) => l.line)).toContain(TEST_RUNTIME === "swarm" ? "The platform restarted: worker kept running." : "The platform restarted: worker.1 kept running.");
  }, 150_000);

  it.skipIf(TEST_RUNTIME === "swarm")("replaces an instance whose env vars changed while no platform ran", async () => {
    await owner.post("/api/apps", { slug: "greeter" });
    await owner.post("/api/apps/greeter/env", { GREETING: "hello" });
    expect((await deploy(owner, "greeter", await zipFolder(null, nodeApp(GREETER)))).status).toBe("LIVE");
    const first = await answer("greeter");
    expect(first).toMatch(/^hello /);
    const appId = await appIdOf("greeter");
    const old = await containers("greeter");

    await stopPlatform(platform, "SIGKILL", base);
    const db = openDb();
    expect((await db.envVar.updateMany({ where: { appId, key: "GREETING" }, data: { value: "bonjour" } })).count).toBe(1);
    await db.$disconnect();
    platform = await startPlatform(env, cleanups);

    expect(await answer("greeter")).toMatch(/^bonjour /);
    expect(await appStatus("greeter")).toBe("RUNNING");
    // The survivor's env did not change: it is still adopted.
    const survivor = await answer("survivor");
    expect(survivor).toBe(before);
    if (TEST_RUNTIME !== "swarm") {
      expect(old).toHaveLength(1);
      const now = await containers("greeter");
      expect(now).toHaveLength(1);
      expect(now).not.toContain(old[0]);
    }
  }, 150_000);

  it.runIf(TEST_RUNTIME === "docker")("adopts each instance of a scaled app, and starts again the one that died while no platform ran", async () => {
    expect((await owner.request("PATCH", "/api/apps/greeter", { json: { instances: 2 } })).status).toBe(200);
    const healthy = () =>
      waitFor(async () => {
        const processes = webInstances((await owner.get("/api/apps/greeter")).body);
        return processes.length === 2 && processes.every((p) => p.state === "HEALTHY") && processes;
      }, 30_000, "two healthy instances of greeter");
    const [web1, web2] = await healthy();

    await stopPlatform(platform, "SIGKILL", base);
    const docker = createDockerClient(process.env.DOCKER_HOST);
    const filters = JSON.stringify({ label: [`${LABEL.platform}=${platformId(dataDir)}`, `${LABEL.instance}=${web2.instanceId}`] });
    const [dead] = await docker.listContainers({ filters });
    await docker.getContainer(dead.Id).remove({ force: true });
    platform = await startPlatform(env, cleanups);

    const [after1, after2] = await healthy();
    expect(after1.instanceId).toBe(web1.instanceId);
    expect(after2.instanceId).not.toBe(web2.instanceId);
    const lines = (await owner.get("/api/apps/greeter/logs?limit=1000")).body as { line: string }[];
    expect(lines.map((l) => l.line)).toContain("The platform restarted: web.1 kept running and serves again. Starting web.2.");
    expect(await containers("greeter")).toHaveLength(2);
  }, 150_000);

  it("adopts after a graceful shutdown too (SIGTERM)", async () => {
    await stopPlatform(platform, "SIGTERM", base);
    platform = await startPlatform(env, cleanups);
    const after = await answer("survivor");
    expect(after).toBe(before);
    expect(await appStatus("survivor")).toBe("RUNNING");
  }, 150_000);

  it("stops, restarts and redeploys an adopted app", async () => {
    expect((await owner.post("/api/apps/survivor/stop", {})).body.status).toBe("STOPPED");
    await waitFor(async () => (await requestApp(base, "survivor.localhost")).status === 503, 15_000, "the stopped app's page");
    if (TEST_RUNTIME !== "swarm") await waitFor(async () => (await containers("survivor")).length === 0, 15_000, "the adopted instance to go");
    expect((await owner.post("/api/apps/survivor/restart", {})).status).toBe(200);
    const restarted = await answer("survivor");
    expect(restarted).not.toBe(before);
    expect(await appStatus("survivor")).toBe("RUNNING");
    const redeployed = await deploy(owner, "survivor", await zipFolder(null, nodeApp(SURVIVOR.replace("alive ", "redeployed "))));
    expect(redeployed.status).toBe("LIVE");
    expect(await answer("survivor")).toMatch(/^redeployed /);
    if (TEST_RUNTIME !== "swarm") await waitFor(async () => (await containers("survivor")).length === 1, 15_000, "one instance once the old release retired");
  }, 150_000);

  it.runIf(TEST_RUNTIME !== "swarm")("takes the apps along on a graceful stop with KEEP_APPS_ON_SHUTDOWN=false; the next start runs them anew", async () => {
    const running = await answer("survivor");
    await stopPlatform(platform, "SIGTERM", base);
    platform = await startPlatform({ ...env, KEEP_APPS_ON_SHUTDOWN: "false" }, cleanups);
    expect(await answer("survivor")).toBe(running); // adopted: the previous platform kept it
    await stopPlatform(platform, "SIGTERM", base);
    expect(await containers("survivor")).toEqual([]);
    platform = await startPlatform(env, cleanups);
    const anew = await answer("survivor");
    expect(anew).toMatch(/^redeployed /);
    expect(anew).not.toBe(running);
    expect(await appStatus("survivor")).toBe("RUNNING");
  }, 150_000);

  const openDb = () => createDb(env.DATABASE_URL ?? `file:${path.join(dataDir, "slipway.db")}`);
  /** The app's database id (its containers' label): the API shows only its slug. */
  async function appIdOf(slug: string): Promise<string> {
    const db = openDb();
    try {
      return (await db.app.findUniqueOrThrow({ where: { slug }, select: { id: true } })).id;
    } finally {
      await db.$disconnect();
    }
  }

  /** The app's instances that run: its containers (docker, swarm) or its sandboxes (local: their records). */
  async function containers(slug: string): Promise<string[]> {
    const appId = await appIdOf(slug);
    if (TEST_RUNTIME === "local") {
      const { records } = await readRecords(keptRoot(dataDir));
      return records.filter((r) => r.appKey === appId && processStartTime(r.monitor.pid) === r.monitor.startTime).map((r) => r.instanceId);
    }
    const docker = createDockerClient(process.env.DOCKER_HOST);
    const filters = JSON.stringify({ label: [`${LABEL.platform}=${platformId(dataDir)}`, `${LABEL.app}=${appId}`] });
    return (await docker.listContainers({ all: true, filters })).map((c) => c.Id);
  }
});
