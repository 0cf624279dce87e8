// Three Slipway processes (`server/main.ts`, a DATA_DIR each, on this machine) on one PostgreSQL database and one
// Redis, on the docker or swarm runtime, with a 3 s lease, each reaching the database through its own TCP proxy (so
// that one can be cut off). A deploy accepted by a follower runs once, on the leader; every instance's router answers
// the app; SIGKILL of the leader under a request loop through the others: no request fails, a follower leads within
// the lease, and a deploy accepted while nobody led runs once on it; a leader cut off from the database steps down
// (exits) and another takes over; on docker, a cron job runs once a minute across the leader's death. Runs with
// SLIPWAY_TEST_RUNTIME=docker or swarm; skipped, saying why, on local. With Caddy installed, one Caddy (EDGE=caddy)
// is in front of all three: its configuration lists every live instance, and a request loop through it runs across
// the leader's death too.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestApp, uploadZip, waitFor, waitForDeployment, zipFolder } from "../helpers/apps.ts";
import { adminRequest } from "../../server/platform/edge/caddy.ts";
import { HAS_CADDY, httpsGet, startCaddy, type TestCaddy } from "../helpers/caddy.ts";
import { Client } from "../helpers/client.ts";
import { GitHubDouble } from "../helpers/git.ts";
import { TEST_RUNTIME, dockerUnavailable, removeLabelled } from "../helpers/runtime.ts";
import { REDIS_URL, createPostgresDatabase, freePort } from "../helpers/server.ts";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const LEASE_MS = 3000;
const skipped = TEST_RUNTIME === "local" ? "the local runtime runs apps on one machine only (see cluster-topology.test.ts)" : await dockerUnavailable();

interface Instance {
  name: string;
  url: string;
  dataDir: string;
  proxy: TcpProxy;
  child: ChildProcess | null;
  /** What the process wrote (its log and its own messages). */
  stderr: string;
}

const github = new GitHubDouble();
const instances: Instance[] = [];
let database: { url: string; drop: () => Promise<void> };
let db: pg.Client;
let env: Record<string, string>;
let owner: Client;
/** In front of every instance, when installed. */
let caddy: TestCaddy | null = null;
let caddyCa = "";
/** SHARED_DATA_DIR of every instance: the apps' data, received zips, the sealing keys, local storage. */
const shared = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-cluster-shared-"));
fs.chmodSync(shared, 0o711);
const slug = `c${Date.now().toString(36)}`;

function app(version: string) {
  return {
    "package.json": JSON.stringify({ name: "clustered", scripts: { start: "node server.js" } }),
    "server.js": `require("http").createServer((q, s) => s.end("${version}")).listen(process.env.PORT);`,
  };
}

async function start(instance: Instance): Promise<void> {
  const port = new URL(instance.url).port;
  const databaseUrl = new URL(database.url);
  databaseUrl.port = String(instance.proxy.port);
  instance.stderr = "";
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: ROOT,
    env: { ...env, PATH: process.env.PATH!, HOME: os.tmpdir(), DATA_DIR: instance.dataDir, DATABASE_URL: databaseUrl.toString(), PORT: port, PUBLIC_URL: instance.url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // The server logs to stdout, JSON lines; main.ts's own messages go to stderr.
  for (const stream of [child.stdout!, child.stderr!]) stream.setEncoding("utf8").on("data", (chunk: string) => (instance.stderr += chunk));
  instance.child = child;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`${instance.name} exited: ${instance.stderr}`);
      return fetch(`${instance.url}/api/openapi.json`).then((r) => r.ok, () => false);
    },
    90_000,
    `${instance.name} to listen`,
  );
}

/** The instance holding a live lease (read with the database's clock), once one does. */
async function leader(except?: Instance): Promise<Instance> {
  return waitFor(
    async () => {
      const { rows } = await db.query(`SELECT i."address" FROM "ClusterLease" l JOIN "ClusterInstance" i ON split_part(l."holder", '/', 1) = i."id" WHERE l."name" = 'engine' AND l."expiresAt" > (now() AT TIME ZONE 'UTC')`);
      const port = rows[0] && String(rows[0].address).split(":").at(-1);
      const found = instances.find((i) => new URL(i.url).port === port);
      return found !== except && found;
    },
    30_000,
    "a leader",
  );
}

function deployed(via: Instance, id: string) {
  const client = new Client(via.url);
  client.cookie = owner.cookie;
  return waitForDeployment(client, slug, id, 120_000);
}

/** The app's address through Caddy. */
const viaCaddy = () => `https://${slug}.localhost:${caddy!.ports.https}/`;

/** Requests to the app through `through` (and Caddy, when it runs), one after another, until stopped: what failed, with why. */
function requestLoop(through: Instance[]) {
  const failures: string[] = [];
  let answered = 0;
  const answeredBy: Record<string, number> = {};
  let running = true;
  const loop = async (name: string, request: () => Promise<{ status: number; body: string }>) => {
    while (running) {
      const answer = await request().catch((error: Error) => ({ status: 0, body: error.message }));
      if (answer.status === 200) answeredBy[name] = (answeredBy[name] ?? 0) + 1;
      if (answer.status === 200) answered++;
      else failures.push(`${name}: ${answer.status} ${answer.body.slice(0, 200)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const agent = new https.Agent({ keepAlive: true });
  const loops = [
    ...through.map((instance) => loop(instance.name, () => requestApp(instance.url, `${slug}.localhost`))),
    ...(caddy ? [loop("caddy", () => httpsGet(viaCaddy(), caddyCa, agent))] : []),
  ];
  return {
    get answered() {
      return answered;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
      return { answered, answeredBy, failures };
    },
  };
}

/** The instances (by name) that Caddy's configuration sends to: the upstreams of its catch-all route to Slipway. */
async function caddySendsTo(): Promise<string[]> {
  const routes = JSON.parse((await adminRequest(caddy!.admin, "GET", "/config/apps/http/servers/slipway/routes")).body) as { handle: { upstreams: { dial: string }[] }[] }[];
  const ports = routes.at(-1)!.handle[0].upstreams.map((upstream) => upstream.dial.split(":").at(-1));
  return instances.filter((instance) => ports.includes(new URL(instance.url).port)).map((instance) => instance.name);
}

const buildLines = async (deploymentId: string) =>
  (await db.query(`SELECT "line" FROM "LogLine" WHERE "deploymentId" = $1 AND "kind" = 'build'`, [deploymentId])).rows.map((r) => String(r.line));

describe.skipIf(!!skipped)(`several instances on ${TEST_RUNTIME}${skipped ? ` (skipped: ${skipped})` : ""}`, () => {
  beforeAll(async () => {
    database = await createPostgresDatabase();
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
    env = {
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      RUNTIME: TEST_RUNTIME,
      REDIS_URL,
      REDIS_KEY_PREFIX: `slipway-cluster-${process.pid}-${Date.now()}:`,
      CLUSTER_LEASE_SECONDS: String(LEASE_MS / 1000),
      GITHUB_URL: github.fileUrl,
      SHARED_DATA_DIR: shared,
      DEFAULT_REQUESTS_PER_MINUTE: "100000",
    };
    if (HAS_CADDY) {
      caddy = await startCaddy("slipway-cluster-caddy-");
      Object.assign(env, caddy.env);
    }
    const target = { host: "127.0.0.1", port: Number(new URL(database.url).port || 5432) };
    for (const name of ["a", "b", "c"]) {
      const port = await freePort();
      instances.push({ name, url: `http://127.0.0.1:${port}`, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), `slipway-cluster-${name}-`)), proxy: await startTcpProxy(target), child: null, stderr: "" });
    }
    // The first to start leads.
    await start(instances[0]);
    await Promise.all(instances.slice(1).map(start));
    owner = new Client(instances[1].url);
    await owner.signup();
    github.create("acme/clustered", app("v1"));
  }, 240_000);

  afterAll(async () => {
    for (const instance of instances) instance.child?.kill("SIGKILL");
    if (process.env.CLUSTER_TEST_LOGS) for (const instance of instances) fs.writeFileSync(path.join(process.env.CLUSTER_TEST_LOGS, `${instance.name}.log`), instance.stderr);
    const { rows } = (await db?.query(`SELECT "key" FROM "Installation"`).catch(() => null)) ?? { rows: [] };
    if (rows[0]) await removeLabelled(String(rows[0].key));
    await db?.end();
    await database?.drop();
    for (const instance of instances) {
      await instance.proxy.close();
      fs.rmSync(instance.dataDir, { recursive: true, force: true });
    }
    fs.rmSync(shared, { recursive: true, force: true });
    await caddy?.stop();
  }, 120_000);

  it("runs a deploy accepted by a follower once, on the leader, and every instance routes the app", async () => {
    const a = await leader();
    expect(a).toBe(instances[0]);
    const follower = instances[1];
    expect((await owner.post("/api/apps", { slug, repo: "acme/clustered" })).status).toBe(201);
    const accepted = await owner.post(`/api/apps/${slug}/deploy`, {});
    expect(accepted.status).toBe(202);
    expect(await deployed(instances[2], accepted.body.id)).toMatchObject({ status: "LIVE" });
    for (const instance of instances) {
      const answer = await waitFor(async () => {
        const got = await requestApp(instance.url, `${slug}.localhost`);
        return got.status === 200 && got;
      }, 10_000, `${instance.name} to route the app`);
      expect(answer.body, instance.name).toBe("v1");
    }
    if (caddy) {
      caddyCa = await caddy.ca();
      // Each instance gives Caddy the same configuration, naming all three.
      await waitFor(async () => (await caddySendsTo()).length === 3, 10_000, "Caddy to send to every instance");
      const answer = await waitFor(async () => {
        const got = await httpsGet(viaCaddy(), caddyCa, new https.Agent()).catch(() => null);
        return got?.status === 200 && got;
      }, 20_000, "Caddy to route the app");
      expect(answer.body).toBe("v1");
    }
    const lines = await buildLines(accepted.body.id);
    expect(lines.filter((line) => line.startsWith("Deploying acme/clustered"))).toHaveLength(1);
    // A zip received by another follower is built by the leader (it reads it from SHARED_DATA_DIR).
    const other = new Client(instances[2].url);
    other.cookie = owner.cookie;
    const uploaded = await uploadZip(other, slug, await zipFolder(null, app("v1-zip")));
    expect(uploaded.status).toBe(202);
    expect(await deployed(instances[0], uploaded.body.id)).toMatchObject({ status: "LIVE" });
    for (const instance of instances) {
      await waitFor(async () => (await requestApp(instance.url, `${slug}.localhost`)).body === "v1-zip", 10_000, `${instance.name} to route the new release`);
    }
    // The follower asks the leader what runs: the app's details show its instance.
    const details = (await owner.get(`/api/apps/${slug}`)).body;
    expect(details.status).toBe("RUNNING");
    expect(details.processes.find((p: { type: string }) => p.type === "web").instances).toHaveLength(1);
    expect(follower).not.toBe(a);
  }, 180_000);

  it("keeps serving through the leader's SIGKILL: a follower leads within the lease and runs the deploy accepted meanwhile, once", async () => {
    const old = await leader();
    const survivors = instances.filter((i) => i !== old);
    const loop = requestLoop(survivors);
    await waitFor(async () => loop.answered >= 10, 10_000, "the request loops to run");
    const killed = Date.now();
    old.child!.kill("SIGKILL");
    github.commit("acme/clustered", app("v2"), "second");
    const via = new Client(survivors[0].url);
    via.cookie = owner.cookie;
    const accepted = await via.post(`/api/apps/${slug}/deploy`, {});
    expect(accepted.status).toBe(202);
    const next = await leader(old);
    const ledAfter = Date.now() - killed;
    expect(survivors).toContain(next);
    expect(ledAfter).toBeLessThan(2 * LEASE_MS);
    expect(await deployed(survivors[1], accepted.body.id)).toMatchObject({ status: "LIVE" });
    // The instances give Caddy a configuration without the dead one once its lease term ran out.
    if (caddy) await waitFor(async () => !(await caddySendsTo()).includes(old.name), 2 * LEASE_MS, "Caddy to stop sending to the dead instance");
    const { answered, answeredBy, failures } = await loop.stop();
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(20);
    if (caddy) expect(answeredBy.caddy).toBeGreaterThan(10);
    for (const instance of survivors) expect((await requestApp(instance.url, `${slug}.localhost`)).body).toBe("v2");
    const lines = await buildLines(accepted.body.id);
    expect(lines.filter((line) => line.startsWith("Deploying acme/clustered"))).toHaveLength(1);
    // The killed instance comes back as a follower.
    await start(old);
    expect(await leader()).toBe(next);
    expect((await requestApp(old.url, `${slug}.localhost`)).body).toBe("v2");
    if (caddy) await waitFor(async () => (await caddySendsTo()).length === 3, 2 * LEASE_MS, "Caddy to send to the instance back");
  }, 240_000);

  it("makes a leader cut off from the database step down: it exits, another leads and the app keeps serving", async () => {
    const cut = await leader();
    const exited = new Promise<number | null>((resolve) => cut.child!.once("exit", resolve));
    cut.proxy.block();
    expect(await exited).toBe(1);
    expect(cut.stderr).toMatch(/lost the cluster's lease/);
    const next = await leader(cut);
    expect(next).not.toBe(cut);
    for (const instance of instances.filter((i) => i !== cut)) expect((await requestApp(instance.url, `${slug}.localhost`)).body).toBe("v2");
  }, 120_000);

  // A minute or three of real time: on docker only (the swarm suite takes longer already; cron is the leader's there too).
  it.skipIf(TEST_RUNTIME !== "docker")("runs a cron job once a minute across the leader's death", async () => {
    github.commit("acme/clustered", { ...app("v3"), "app.json": JSON.stringify({ cron: [{ command: "node -e 0", schedule: "* * * * *" }] }) }, "cron");
    const via = new Client(instances.find((i) => i.child?.exitCode === null)!.url);
    via.cookie = owner.cookie;
    const accepted = await via.post(`/api/apps/${slug}/deploy`, {});
    expect(await deployed(instances.find((i) => i.child?.exitCode === null)!, accepted.body.id)).toMatchObject({ status: "LIVE" });
    const minutes = async () => (await db.query(`SELECT "createdAt" FROM "Run" WHERE "trigger" = 'cron' ORDER BY "createdAt"`)).rows.map((r) => Math.floor(new Date(r.createdAt as string).getTime() / 60_000));
    const first = await waitFor(async () => (await minutes())[0], 75_000, "the first cron run");
    // Killed within the minute of that run: the next minutes are the new leader's.
    const old = await leader();
    old.child!.kill("SIGKILL");
    await waitFor(async () => (await minutes()).includes(first + 2) || null, 150_000, "the cron runs of the next two minutes");
    const seen = (await minutes()).filter((minute) => minute <= first + 2);
    expect(seen).toEqual([first, first + 1, first + 2]);
    expect(await leader(old)).not.toBe(old);
  }, 300_000);
});
