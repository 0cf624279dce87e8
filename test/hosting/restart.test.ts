// The platform killed with SIGKILL (no shutdown at all) and started again on the same data: the deployment
// it was building is marked FAILED, never left BUILDING; the app that was running comes back; nothing of the
// killed platform's sandboxes is left behind.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, uploadZip, waitFor, zipFolder } from "../helpers/apps.ts";
import { createPostgresDatabase, freePort } from "../helpers/server.ts";
import { TEST_RUNTIME, removeDockerLeftovers, runtimeEnv } from "../helpers/runtime.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function startPlatform(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: os.tmpdir(), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  cleanups.push(() => void child.kill("SIGKILL"));
  return waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the platform exited: ${stderr}`);
      const ok = await fetch(`${env.PUBLIC_URL}/api/openapi.json`).then((r) => r.ok, () => false);
      return ok && child;
    },
    60_000,
    "the platform to listen",
  );
}

const nodeApp = (js: string, pkg: Record<string, unknown> = {}) => ({
  "package.json": JSON.stringify({ name: "t", version: "1.0.0", ...pkg }),
  "server.js": js,
});

describe("a platform killed and started again", () => {
  it("fails the interrupted deployment and brings the running app back", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-restart-"));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    if (TEST_RUNTIME !== "local") cleanups.push(() => removeDockerLeftovers(dataDir));
    const database = process.env.TEST_DATABASE === "postgres" ? await createPostgresDatabase() : null;
    if (database) cleanups.push(database.drop);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: base, DEFAULT_REQUESTS_PER_MINUTE: "100000", ...(database ? { DATABASE_URL: database.url } : {}), ...runtimeEnv() };

    const first = await startPlatform(env);
    const owner = new Client(base);
    await owner.signup();
    await owner.post("/api/apps", { slug: "survivor" });
    await owner.post("/api/apps", { slug: "interrupted" });
    expect((await deploy(owner, "survivor", await zipFolder(null, nodeApp(`const started = Math.random(); require("http").createServer((q, s) => s.end("alive " + started)).listen(process.env.PORT);`)))).status).toBe("LIVE");
    const before = (await requestApp(base, "survivor.localhost")).body;
    expect(before).toMatch(/^alive/);
    const slow = await uploadZip(owner, "interrupted", await zipFolder(null, nodeApp("", { scripts: { build: "sleep 60" } })));
    await waitFor(async () => (await owner.get("/api/apps/interrupted")).body.deployments[0].status === "BUILDING", 30_000, "BUILDING");

    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    // Local sandboxes die with their platform (bubblewrap --die-with-parent); containers are reaped at the next boot.
    await waitFor(async () => (await requestApp(base, "survivor.localhost").catch(() => null)) === null, 10_000, "the old platform's port to close");

    await startPlatform(env);
    const interrupted = (await owner.get("/api/apps/interrupted")).body;
    expect(interrupted.deployments[0]).toMatchObject({ id: slow.body.id, status: "FAILED", error: expect.stringMatching(/platform restarted/) });
    expect(interrupted.status).toBe("FAILED");
    const after = await waitFor(async () => {
      const res = await requestApp(base, "survivor.localhost");
      return res.status === 200 && res.body;
    }, 30_000, "the survivor to answer");
    expect(after).toMatch(/^alive/);
    expect(after).not.toBe(before);
    expect((await owner.get("/api/apps/survivor")).body.status).toBe("RUNNING");
  }, 120_000);
});
