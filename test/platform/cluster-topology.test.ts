// The local runtime runs each instance's apps on its own machine: an instance refuses to boot (exit status 1, one
// line saying why and what to run instead) while another machine's instance, seen within a lease term, shares its
// database with RUNTIME=local, or any other instance is seen without REDIS_URL (instances reach the leader through
// it); one last seen longer ago (dead) does not stop it. Instances on one machine share a database (with Redis: the
// multi-instance suites run so).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "../../server/db/client.ts";
import { migrate } from "../../server/db/migrate.ts";
import { freePort } from "../helpers/server.ts";
import { startPlatform, stopPlatform } from "../helpers/platform-process.ts";
import { removeLocalLeftovers } from "../helpers/runtime.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-topology-"));
const databaseUrl = `file:${path.join(dataDir, "slipway.db")}`;
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await removeLocalLeftovers(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function elsewhere(lastSeenAt: Date, address = "build-02.example.internal:3000") {
  await migrate(databaseUrl);
  const db = createDb(databaseUrl);
  const row = { address, runtime: "local", startedAt: lastSeenAt, lastSeenAt };
  await db.clusterInstance.upsert({ where: { id: "remote000000" }, create: { id: "remote000000", ...row }, update: row });
  await db.$disconnect();
}

/** A lease term far longer than a boot on a loaded machine: the other instance's row stays live while this one starts. */
const LEASE_SECONDS = 120;

async function environment() {
  const port = await freePort();
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    KEEP_APPS_ON_SHUTDOWN: "false",
    CLUSTER_LEASE_SECONDS: String(LEASE_SECONDS),
  };
}

/** Starts an instance that should refuse to boot: its exit status and last line. */
async function refused(): Promise<{ code: number | null; line: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: os.tmpdir(), LOG_LEVEL: "warn", ...(await environment()) }, stdio: ["ignore", "ignore", "pipe"] });
  cleanups.push(() => void child.kill("SIGKILL"));
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, line: stderr.trim().split("\n").at(-1)! };
}

describe("RUNTIME=local beside an instance on another machine", () => {
  it("refuses to boot, saying why and what to run instead", async () => {
    await elsewhere(new Date());
    const { code, line } = await refused();
    expect(code).toBe(1);
    expect(line).toMatch(/^Another Slipway instance uses this database from another machine \(build-02\.example\.internal:3000, RUNTIME=local\)/);
    expect(line).toMatch(/Run several instances with RUNTIME=docker .* or RUNTIME=swarm, or stop the other instance\.$/);
  }, 60_000);

  it("refuses to boot beside an instance on this machine without REDIS_URL, saying to set it", async () => {
    await elsewhere(new Date(), `${os.hostname()}:3999`);
    const { code, line } = await refused();
    expect(code).toBe(1);
    expect(line).toMatch(/^Another Slipway instance uses this database \(.*:3999\), and REDIS_URL is not set/);
    expect(line).toMatch(/Set REDIS_URL on every instance \(the same Redis\), or stop the other instance\.$/);
  }, 60_000);

  it("boots when that instance was last seen longer than a lease term ago", async () => {
    await elsewhere(new Date(Date.now() - 2 * LEASE_SECONDS * 1000));
    const env = await environment();
    const platform = await startPlatform(env, cleanups);
    await stopPlatform(platform, "SIGTERM", env.PUBLIC_URL);
  }, 60_000);
});
