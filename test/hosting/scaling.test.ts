// Scaling an app: PATCH instances runs that many sandboxed processes of its live release, the router balances
// across the healthy ones, an instance that dies or stops answering leaves the rotation while the others serve,
// and scaling down or redeploying under load fails no request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, waitFor, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: Client;
let counter = 0;
const newSlug = () => `scale-${process.pid}-${++counter}`;

/** Answers `<version> <instance id>`; POST /die kills its own process, POST /hang makes it stop answering. */
const app = (version: string) => ({
  "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
  "server.js": `
    const id = require("crypto").randomUUID().slice(0, 8);
    let hung = false;
    require("http").createServer((q, s) => {
      if (hung) return;
      if (q.method === "POST" && q.url === "/die") return process.kill(process.pid, "SIGKILL");
      if (q.method === "POST" && q.url === "/hang") { hung = true; return s.end("hanging"); }
      s.end(${JSON.stringify(version)} + " " + id);
    }).listen(process.env.PORT, () => console.log("listening as " + id));
    process.on("SIGTERM", () => { console.log("stopping as " + id); process.exit(0); });
  `,
});

interface Process {
  index: number;
  name: string;
  instanceId: string | null;
  state: string;
  startedAt: string | null;
  restarts: number;
}

async function processes(slug: string): Promise<Process[]> {
  const res = await owner.get(`/api/apps/${slug}`);
  if (res.status !== 200) throw new Error(`GET /api/apps/${slug}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.processes.find((p: { type: string }) => p.type === "web")?.instances ?? [];
}
const healthy = async (slug: string, n: number) => {
  const list = await processes(slug);
  return list.length === n && list.every((p) => p.state === "HEALTHY") ? list : null;
};
const get = (slug: string, path = "/") => requestApp(server.url, `${slug}.localhost`, path);

/** Requests the app from `workers` loops until stopped; every answer's status and body. */
function load(slug: string, workers = 4) {
  const answers: { status: number; body: string }[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) answers.push(await get(slug).catch((error: Error) => ({ status: 0, body: error.message })));
  });
  return {
    answers,
    /** Resolves once `count` requests were answered (whatever the answer). */
    answered: (count: number) => waitFor(async () => answers.length >= count, 10_000, `${count} answers`),
    async stop() {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

const failures = (answers: { status: number; body: string }[]) => answers.filter((a) => a.status !== 200);

async function deployed(version = "v1"): Promise<string> {
  const slug = newSlug();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  expect((await deploy(owner, slug, await zipFolder(null, app(version)))).status).toBe("LIVE");
  return slug;
}

async function scale(slug: string, instances: number): Promise<Process[]> {
  const res = await owner.request("PATCH", `/api/apps/${slug}`, { json: { instances } });
  expect(res.status).toBe(200);
  expect(res.body.instances).toBe(instances);
  return waitFor(() => healthy(slug, instances), 30_000, `${instances} healthy instances of ${slug}`);
}

beforeAll(async () => {
  server = await startServer({
    DEFAULT_MAX_APPS: "20",
    DEFAULT_MAX_INSTANCES: "3",
    DEFAULT_REQUESTS_PER_MINUTE: "100000",
    HEALTH_CHECK_INTERVAL_MS: "200",
    HEALTH_CHECK_TIMEOUT_MS: "300",
    HEALTH_CHECK_FAILURES: "2",
    HEALTH_CHECK_RESTART_AFTER: "5",
  });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

describe("scaling", () => {
  it("refuses invalid instance counts with 400, and more than maxInstances with 403 naming the limit", async () => {
    const slug = newSlug();
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    const zero = await owner.request("PATCH", `/api/apps/${slug}`, { json: { instances: 0 } });
    expect(zero.status).toBe(400);
    expect(zero.body.error.message).toMatch(/stop the app/);
    for (const instances of [-1, 1.5, "2", 101]) {
      const res = await owner.request("PATCH", `/api/apps/${slug}`, { json: { instances } });
      expect(res.status, JSON.stringify(instances)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    const over = await owner.request("PATCH", `/api/apps/${slug}`, { json: { instances: 4 } });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: "quota_exceeded", message: expect.stringMatching(/up to 3 instances.*maxInstances/) });
    expect((await owner.get(`/api/apps/${slug}`)).body.instances).toBe(1);
    const me = (await owner.get("/api/me")).body;
    expect(me.quota).toMatchObject({ maxInstances: 3, usage: { instances: 1 } });
  });

  it("scales 1 → 3: requests reach every instance, each one's log lines say which it is", async () => {
    const slug = await deployed();
    expect((await processes(slug)).map((p) => p.name)).toEqual(["web.1"]);
    const three = await scale(slug, 3);
    expect(three.map((p) => p.name)).toEqual(["web.1", "web.2", "web.3"]);
    expect(new Set(three.map((p) => p.instanceId)).size).toBe(3);
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const res = await get(slug);
      expect(res.status).toBe(200);
      seen.add(res.body);
    }
    expect(seen.size).toBe(3);
    const logs: { instance: number | null; line: string }[] = (await owner.get(`/api/apps/${slug}/logs?limit=1000`)).body;
    const listening = logs.filter((l) => l.line.startsWith("listening as "));
    expect(new Set(listening.map((l) => l.instance))).toEqual(new Set([1, 2, 3]));
    expect((await owner.get("/api/me")).body.quota.usage.instances).toBe(3);
  });

  it("keeps serving with no failed request when an instance's process is killed, and restarts it", async () => {
    const slug = await deployed();
    const before = await scale(slug, 3);
    const traffic = load(slug);
    await traffic.answered(20);
    // The killed instance's own request fails (it dies answering it); nothing else may.
    const killed = await requestApp(server.url, `${slug}.localhost`, "/die", { method: "POST" }).catch(() => null);
    expect(killed?.status ?? 502).toBe(502);
    const crashed = await waitFor(async () => (await processes(slug)).find((p) => p.state === "CRASHED"), 10_000, "the killed instance seen as crashed");
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("RUNNING");
    const after = await waitFor(() => healthy(slug, 3), 20_000, "the killed instance restarted");
    const answers = await traffic.stop();
    expect(failures(answers)).toEqual([]);
    expect(answers.length).toBeGreaterThan(20);
    const restarted = after.find((p) => p.index === crashed.index)!;
    expect(restarted.instanceId).not.toBe(before.find((p) => p.index === crashed.index)!.instanceId);
    expect(restarted.restarts).toBe(1);
    const lines: string[] = (await owner.get(`/api/apps/${slug}/logs?limit=1000`)).body.map((l: { line: string }) => l.line);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^Crashed: web\\.${crashed.index}: .*Restarting in 1 s \\(failure 1 in a row\\)\\. .*keep serving\\.$`)));
  });

  it("scales 3 → 1 and redeploys 3 instances under load with no failed request", async () => {
    const slug = await deployed();
    await scale(slug, 3);
    const traffic = load(slug);
    await traffic.answered(20);
    const v2 = deploy(owner, slug, await zipFolder(null, app("v2")));
    expect((await v2).status).toBe("LIVE");
    const redeployed = await waitFor(() => healthy(slug, 3), 10_000, "3 instances of v2");
    await traffic.answered(traffic.answers.length + 20);
    await scale(slug, 1);
    // Load goes on until the two removed instances have drained and stopped.
    const v2Ids = new Set(traffic.answers.filter((a) => a.body.startsWith("v2 ")).map((a) => a.body.slice(3)));
    await waitFor(async () => {
      const logs: { line: string }[] = (await owner.get(`/api/apps/${slug}/logs?limit=1000`)).body;
      return logs.filter((l) => l.line.startsWith("stopping as ") && v2Ids.has(l.line.slice("stopping as ".length))).length === 2;
    }, 15_000, "the two removed instances stopped");
    const answers = await traffic.stop();
    expect(failures(answers)).toEqual([]);
    expect(new Set(answers.filter((a) => a.body.startsWith("v2")).map((a) => a.body)).size).toBe(3);
    expect((await processes(slug)).map((p) => p.instanceId)).toEqual([redeployed[0].instanceId]);
    const after = new Set<string>();
    for (let i = 0; i < 10; i++) after.add((await get(slug)).body);
    expect([...after]).toEqual([expect.stringMatching(/^v2 /)]);
  });

  it("takes an instance that stops answering its health checks out of rotation", async () => {
    const slug = await deployed();
    await scale(slug, 2);
    // A TCP connect (the default check) still succeeds on a hung instance: this app's check asks for / instead.
    const healthcheck = { path: "/", intervalSeconds: 1, timeoutSeconds: 1 };
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { healthcheck } })).status).toBe(200);
    // POST: a request the router never retries elsewhere, so exactly one instance hangs.
    expect((await requestApp(server.url, `${slug}.localhost`, "/hang", { method: "POST" })).body).toBe("hanging");
    const list = await waitFor(async () => {
      const all = await processes(slug);
      return all.some((p) => p.state === "UNHEALTHY") ? all : null;
    }, 10_000, "an unhealthy instance");
    expect(list.filter((p) => p.state === "HEALTHY")).toHaveLength(1);
    const bodies = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await get(slug);
      expect(res.status).toBe(200);
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(1);
    const lines: string[] = (await owner.get(`/api/apps/${slug}/logs?limit=1000`)).body.map((l: { line: string }) => l.line);
    expect(lines).toContainEqual(expect.stringMatching(/^web\.\d: failed 2 health checks in a row \(GET \/: it did not answer within 1000 ms\): out of rotation/));

    // Still failing after 5 checks: restarted, and the new process takes its place in rotation.
    const stuck = list.find((p) => p.state === "UNHEALTHY")!;
    const replaced = await waitFor(async () => {
      const all = await healthy(slug, 2);
      return all && !all.some((p) => p.instanceId === stuck.instanceId) ? all : null;
    }, 20_000, "the stuck instance to be replaced by a healthy one");
    expect(replaced.find((p) => p.index === stuck.index)!.instanceId).not.toBe(stuck.instanceId);
    const after: string[] = (await owner.get(`/api/apps/${slug}/logs?limit=1000`)).body.map((l: { line: string }) => l.line);
    expect(after).toContainEqual(`${stuck.name}: failed 5 health checks in a row: restarting it.`);
    const bodies2 = new Set<string>();
    for (let i = 0; i < 20; i++) bodies2.add((await get(slug)).body);
    expect(bodies2.size).toBe(2);
  });
});
