// Every Procfile type runs: a Node app with web and worker, where the worker's effect is visible through web (both
// use the app's data directory); scaled to worker=2 and back to 0 over REST and GraphQL; a killed worker restarted
// while web serves; stopped and started with the app; bad formations refused saying why. Real sandboxed processes.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, waitFor, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { TEST_RUNTIME } from "../helpers/runtime.ts";

let server: TestServer;
let owner: Client;
const slug = `procs-${process.pid}`;

const files = {
  "package.json": JSON.stringify({ name: "procs", version: "1.0.0" }),
  Procfile: "web: node server.js\nworker: node worker.js\n",
  "server.js": `
    const fs = require("fs");
    require("http").createServer((q, s) => {
      let seen = [];
      try { seen = [...new Set(fs.readFileSync("/data/ticks", "utf8").trim().split("\\n").slice(-200))]; } catch {}
      s.end(JSON.stringify({ port: process.env.PORT, dyno: process.env.DYNO, workers: seen.sort() }));
    }).listen(process.env.PORT);
  `,
  "worker.js": `
    const fs = require("fs");
    console.log(process.env.DYNO + " started, PORT " + (process.env.PORT ?? "unset"));
    setInterval(() => fs.appendFileSync("/data/ticks", process.env.DYNO + "\\n"), 50);
  `,
};

interface ProcessView {
  type: string;
  command: string;
  quantity: number;
  instances: { name: string; state: string; restarts: number; instanceId: string | null }[];
}

const processes = async (): Promise<ProcessView[]> => (await owner.get(`/api/apps/${slug}/processes`)).body;
const worker = async () => (await processes()).find((p) => p.type === "worker")!;
const web = async () => JSON.parse((await requestApp(server.url, `${slug}.localhost`, "/")).body) as { port: string; dyno: string; workers: string[] };

/** The host pid of this app's sandboxed process running with DYNO=`dyno` and `marker` on its command line. */
function pidOf(dyno: string, marker: string): number | null {
  const lines = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" }).split("\n");
  for (const line of lines.filter((l) => l.includes(marker) && !l.includes("ps -eo"))) {
    const pid = Number(line.trim().split(/\s+/)[0]);
    const environ = (() => {
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      } catch {
        return [];
      }
    })();
    if (environ.includes(`DYNO=${dyno}`) && environ.includes(`TEST_APP=${slug}`) && !line.includes("bwrap")) return pid;
  }
  return null;
}

beforeAll(async () => {
  server = await startServer({ DEFAULT_MAX_INSTANCES: "3", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  // Other apps on this machine may run a worker.1 too: this one's processes carry its slug.
  expect((await owner.post(`/api/apps/${slug}/env`, { TEST_APP: slug })).status).toBe(200);
  const deployment = await deploy(owner, slug, await zipFolder(null, files));
  expect(deployment.status, JSON.stringify(deployment)).toBe("LIVE");
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe("process types beside web", () => {
  it("run the Procfile's worker beside web, without PORT, its effect visible through web", async () => {
    const list = await processes();
    expect(list.map((p) => [p.type, p.command, p.quantity])).toEqual([
      ["web", "node server.js", 1],
      ["worker", "node worker.js", 1],
    ]);
    await waitFor(async () => (await worker()).instances[0]?.state === "RUNNING", 10_000, "worker.1 running");
    await waitFor(async () => (await web()).workers.includes("worker.1"), 10_000, "worker.1's ticks seen by web");
    expect((await web()).dyno).toBe("web.1");
    const logs = (await owner.get(`/api/apps/${slug}/logs?kind=runtime`)).body as { process: string | null; line: string }[];
    expect(logs).toContainEqual(expect.objectContaining({ process: "worker.1", line: "worker.1 started, PORT unset" }));
    const build = (await owner.get(`/api/apps/${slug}/logs?kind=build`)).body as { line: string }[];
    expect(build.map((l) => l.line)).toContain("worker × 1: $ node worker.js");
  });

  it("scales worker to 2 and back to 1 over REST, the app's details listing each instance", async () => {
    const res = await owner.request("PATCH", `/api/apps/${slug}/formation`, { json: { worker: 2 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.find((p: ProcessView) => p.type === "worker").quantity).toBe(2);
    await waitFor(async () => (await web()).workers.includes("worker.2"), 10_000, "worker.2's ticks");
    const names = async () => ((await owner.get(`/api/apps/${slug}`)).body.processes.find((p: ProcessView) => p.type === "worker").instances as { name: string }[]).map((i) => i.name);
    // Swarm's tasks are seen at the next poll (1 s).
    await waitFor(async () => (await names()).length === 2, 5_000, "two worker instances listed");
    expect(await names()).toEqual(["worker.1", "worker.2"]);
    expect((await owner.request("PATCH", `/api/apps/${slug}/formation`, { json: { worker: 1 } })).status).toBe(200);
    await waitFor(async () => (await worker()).instances.length === 1, 10_000, "worker.2 stopped");
    expect(pidOf("worker.2", "worker.js")).toBeNull();
  });

  it("restarts a killed worker while web serves", async () => {
    const pid = await waitFor(async () => pidOf("worker.1", "worker.js"), 10_000, "worker.1's process");
    const before = (await worker()).instances[0].instanceId;
    process.kill(pid, "SIGKILL");
    expect((await requestApp(server.url, `${slug}.localhost`, "/")).status).toBe(200);
    const restarted = await waitFor(async () => {
      const instance = (await worker()).instances[0];
      return instance?.state === "RUNNING" && instance.instanceId !== before && instance;
    }, 15_000, "worker.1 restarted");
    expect(restarted.restarts).toBe(1);
    const logs = (await owner.get(`/api/apps/${slug}/logs?kind=runtime`)).body as { line: string }[];
    // Swarm restarts a failed task itself (its own delay); Slipway's supervisor backs off.
    const crashed = TEST_RUNTIME === "swarm" ? /^Crashed: worker\.1: .+\. Swarm starts another\.$/ : /^Crashed: worker\.1: the process exited \(.+\)\. Restarting in 1 s \(failure 1 in a row\)\.$/;
    expect(logs.map((l) => l.line)).toContainEqual(expect.stringMatching(crashed));
  });

  it("scales to 0 and up again over GraphQL", async () => {
    const scale = (formation: Record<string, number>) =>
      owner.graphql(`mutation ($slug: String!, $formation: Formation!) { scaleProcesses(slug: $slug, formation: $formation) { ... on MutationScaleProcessesSuccess { data { type quantity } } ... on Error { code message } } }`, { slug, formation });
    const zero = (await scale({ worker: 0 })).body;
    expect(zero.data!.scaleProcesses.data).toContainEqual({ type: "worker", quantity: 0 });
    await waitFor(async () => (await worker()).instances.length === 0, 10_000, "no worker");
    expect(pidOf("worker.1", "worker.js")).toBeNull();
    await scale({ worker: 1 });
    await waitFor(async () => (await worker()).instances[0]?.state === "RUNNING", 10_000, "worker.1 back");
  });

  it("stops the worker with the app and starts it again with a restart", async () => {
    expect((await owner.post(`/api/apps/${slug}/stop`)).status).toBe(200);
    await waitFor(async () => (await worker())?.instances.length === 0 || !(await worker()), 10_000, "the worker stopped");
    expect(pidOf("worker.1", "worker.js")).toBeNull();
    expect((await owner.post(`/api/apps/${slug}/restart`)).status).toBe(200);
    await waitFor(async () => (await worker())?.instances[0]?.state === "RUNNING", 15_000, "the worker back");
  });

  it("refuses a formation it cannot run, saying why", async () => {
    const refused = async (body: unknown, status: number) => {
      const res = await owner.request("PATCH", `/api/apps/${slug}/formation`, { json: body });
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      return res.body.error as { code: string; message: string; details?: { fields?: Record<string, string> } };
    };
    expect((await refused({ worker: -1 }, 400)).message).toMatch(/^worker: Use a whole number from 0/);
    expect((await refused({ nope: 1 }, 400)).message).toBe('nope: The live release has no process type "nope": it runs web, worker.');
    expect((await refused({ web: 0 }, 400)).message).toMatch(/^web: .*stop the app/);
    expect((await refused({ worker: 1.5 }, 400)).details?.fields).toEqual({ worker: expect.stringMatching(/whole number/) });
    expect((await refused({}, 400)).message).toMatch(/e\.g\. \{"web": 2, "worker": 1\}/);
    expect((await refused([1], 400)).code).toBe("invalid_request");
    // maxInstances is 3 here: web 1 + worker 3 is past it.
    const quota = await refused({ worker: 3 }, 403);
    expect(quota.code).toBe("quota_exceeded");
    expect(quota.message).toMatch(/runs 4 instances .* maxInstances of 3/);
    expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { instances: 3 } })).status).toBe(403);
  });

  it("leaves no process of any type once the app is deleted", async () => {
    await waitFor(async () => pidOf("worker.1", "worker.js"), 15_000, "worker.1 running");
    expect((await owner.request("DELETE", `/api/apps/${slug}`)).status).toBe(204);
    await waitFor(async () => pidOf("worker.1", "worker.js") === null && pidOf("web.1", "server.js") === null, 15_000, "no process of the app");
  });
});
