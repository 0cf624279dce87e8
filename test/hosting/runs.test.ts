// One-off runs: a command run once in the app's live release, sandboxed like its processes, over REST and GraphQL:
// its exit code and output, the app's env vars and files, a timeout and a cancel that kill the whole process tree,
// bad input, maxInstances, and a platform stop or restart that fails what it interrupted (nothing runs twice).
import { execFileSync } from "node:child_process";
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client } from "../helpers/client.ts";
import { deploy, waitFor, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { bearer, issueTokens, registerClient } from "../oauth/helpers.ts";

let server: TestServer;
let owner: Client;
let slug: string;

const FINISHED = new Set(["SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELED"]);

const nodeApp = {
  "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
  "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`,
  "notes.txt": "a file of the release\n",
};

interface Run {
  id: string;
  command: string;
  trigger: string;
  status: string;
  exitCode: number | null;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

async function start(command: string, timeoutSeconds?: number): Promise<Run> {
  const res = await owner.post(`/api/apps/${slug}/runs`, { command, ...(timeoutSeconds ? { timeoutSeconds } : {}) });
  if (res.status !== 202) throw new Error(`POST runs: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

function finished(id: string, timeoutMs = 30_000): Promise<Run> {
  return waitFor(
    async () => {
      const res = await owner.get(`/api/apps/${slug}/runs/${id}`);
      return FINISHED.has(res.body.status) ? (res.body as Run) : null;
    },
    timeoutMs,
    `run ${id} to finish`,
  );
}

async function output(id: string): Promise<string[]> {
  const res = await owner.get(`/api/apps/${slug}/logs?kind=run&run=${id}`);
  expect(res.status).toBe(200);
  return res.body.filter((l: { stream: string }) => l.stream !== "system").map((l: { line: string }) => l.line);
}

/** The host's processes whose command line contains `marker` (sandboxed processes are the host's too). */
function processesWith(marker: string): string[] {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo"));
}

const marker = () => `${20 + Math.floor(Math.random() * 9)}.${Math.floor(Math.random() * 1e6)}`;

beforeAll(async () => {
  server = await startServer({ DEFAULT_MAX_INSTANCES: "2", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
  slug = `runs-${process.pid}`;
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  expect((await owner.post(`/api/apps/${slug}/env`, { GREETING: "hello from env" })).status).toBe(200);
  expect((await deploy(owner, slug, await zipFolder(null, nodeApp))).status).toBe("LIVE");
}, 120_000);
afterAll(() => server?.close());

describe("one-off runs", () => {
  it("need a session or token (401), the owner's app (404 for others) and write:apps to start or cancel (403)", async () => {
    expect((await new Client(server.url).post(`/api/apps/${slug}/runs`, { command: "echo hi" })).status).toBe(401);
    const stranger = new Client(server.url);
    await stranger.signup();
    const attempts = await Promise.all([
      stranger.post(`/api/apps/${slug}/runs`, { command: "echo hi" }),
      stranger.get(`/api/apps/${slug}/runs`),
      stranger.get(`/api/apps/${slug}/runs/nope`),
      stranger.post(`/api/apps/${slug}/runs/nope/cancel`),
    ]);
    expect(attempts.map((r) => [r.status, r.body.error.code])).toEqual(Array(4).fill([404, "not_found"]));
    const readOnly = bearer(server, (await issueTokens(server, owner, await registerClient(owner), "read:apps")).access_token);
    expect((await readOnly.get(`/api/apps/${slug}/runs`)).status).toBe(200);
    const refused = await readOnly.post(`/api/apps/${slug}/runs`, { command: "echo hi" });
    expect([refused.status, refused.body.error.code]).toEqual([403, "insufficient_scope"]);
  });

  it("refuses bad input with 400 naming the field, and an app without a live release with 409", async () => {
    const cases: [unknown, string][] = [
      [{ command: "" }, "command"],
      [{ command: "   " }, "command"],
      [{ command: "echo a\u0000b" }, "command"],
      [{}, "command"],
      [{ command: "echo hi", timeoutSeconds: 0 }, "timeoutSeconds"],
      [{ command: "echo hi", timeoutSeconds: 86_401 }, "timeoutSeconds"],
      [{ command: "echo hi", timeoutSeconds: 1.5 }, "timeoutSeconds"],
      [{ command: "echo hi", timeoutSeconds: "10" }, "timeoutSeconds"],
    ];
    for (const [body, field] of cases) {
      const res = await owner.post(`/api/apps/${slug}/runs`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(Object.keys(res.body.error.details.fields), JSON.stringify(body)).toContain(field);
    }
    const fresh = `runs-new-${process.pid}`;
    expect((await owner.post("/api/apps", { slug: fresh })).status).toBe(201);
    const never = await owner.post(`/api/apps/${fresh}/runs`, { command: "echo hi" });
    expect([never.status, never.body.error.code]).toEqual([409, "conflict"]);
    expect(never.body.error.message).toMatch(/no live release.*deploy it first/);
  });

  it("records the exit code and the output: SUCCEEDED with 0, FAILED with another code; listed newest first", async () => {
    const failing = await start("echo ok; exit 3");
    expect(failing).toMatchObject({ command: "echo ok; exit 3", trigger: "api", status: "RUNNING" });
    expect(await finished(failing.id)).toMatchObject({ status: "FAILED", exitCode: 3, error: null, finishedAt: expect.any(String) });
    expect(await output(failing.id)).toEqual(["ok"]);
    const passing = await start("echo ok");
    expect(await finished(passing.id)).toMatchObject({ status: "SUCCEEDED", exitCode: 0 });
    expect(await output(passing.id)).toEqual(["ok"]);
    const list = (await owner.get(`/api/apps/${slug}/runs`)).body as Run[];
    expect(list.slice(0, 2).map((r) => r.id)).toEqual([passing.id, failing.id]);
    const system = (await owner.get(`/api/apps/${slug}/logs?kind=run&run=${failing.id}`)).body.filter((l: { stream: string }) => l.stream === "system");
    expect(system.at(-1).line).toBe("Exited with code 3.");
  });

  it("runs in the app's release with its env vars, inside the sandbox", async () => {
    // The value itself is redacted from the stored output, as in every app log: its length and first word show it.
    const run = await start('echo "${#GREETING}:${GREETING%% *}"; cat notes.txt; pwd');
    expect(await finished(run.id)).toMatchObject({ status: "SUCCEEDED", exitCode: 0 });
    expect(await output(run.id)).toEqual(["14:hello", "a file of the release", "/app"]);
  });

  it("works over GraphQL: startRun, App.run, App.runs and appLogs(kind: run)", async () => {
    const started = await owner.graphql(
      `mutation($slug: String!) { startRun(slug: $slug, input: { command: "echo from graphql; exit 4" }) {
        __typename ... on Run { id status } ... on Error { code message } } }`,
      { slug },
    );
    expect(started.body.data.startRun).toMatchObject({ __typename: "Run", status: "RUNNING" });
    const id = started.body.data.startRun.id;
    const run = await waitFor(async () => {
      const res = await owner.graphql(`query($slug: String!, $id: ID!) { app(slug: $slug) { run(id: $id) { status exitCode } runs(first: 1) { id } } }`, { slug, id });
      const app = res.body.data.app;
      return FINISHED.has(app.run.status) ? app : null;
    });
    expect(run).toEqual({ run: { status: "FAILED", exitCode: 4 }, runs: [{ id }] });
    const logs = await owner.graphql(`query($slug: String!, $id: ID!) { appLogs(slug: $slug, kind: run, run: $id) { stream line runId } }`, { slug, id });
    expect(logs.body.data.appLogs.filter((l: { stream: string }) => l.stream === "stdout")).toEqual([{ stream: "stdout", line: "from graphql", runId: id }]);
    const bad = await owner.graphql(`mutation($slug: String!) { startRun(slug: $slug, input: { command: "" }) { __typename ... on InvalidRequestError { fields { field } } } }`, { slug });
    expect(bad.body.data.startRun).toEqual({ __typename: "InvalidRequestError", fields: [{ field: "command" }] });
    // A NUL written as an escape in the document itself (a JSON body with one is refused before GraphQL runs).
    const nul = await owner.graphql(`mutation($slug: String!) { startRun(slug: $slug, input: { command: "echo a\\u0000b" }) { __typename ... on InvalidRequestError { fields { field message } } } }`, { slug });
    expect(nul.body.data.startRun).toEqual({ __typename: "InvalidRequestError", fields: [{ field: "command", message: expect.stringMatching(/NUL/) }] });
  });

  it("streams a run's output over the runOutput subscription, which completes once the run finished", async () => {
    const url = server.url.replace(/^http/, "ws") + "/graphql";
    const cookie = owner.cookie!;
    class WithCookie extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { cookie } });
      }
    }
    const client = createClient({ url, webSocketImpl: WithCookie, retryAttempts: 0 });
    const run = (await owner.post(`/api/apps/${slug}/runs`, { command: "echo one; sleep 0.3; echo two; exit 4" })).body;
    const batches: { lines: { line: string; stream: string }[]; run: { status: string; exitCode: number | null } }[] = [];
    await new Promise<void>((resolve, reject) =>
      client.subscribe(
        { query: `subscription($slug: String!, $id: ID!) { runOutput(slug: $slug, id: $id) { lines { line stream } run { status exitCode } } }`, variables: { slug, id: run.id } },
        { next: (value) => void batches.push((value.data as { runOutput: (typeof batches)[number] }).runOutput), error: reject, complete: resolve },
      ),
    );
    await client.dispose();
    const lines = batches.flatMap((b) => b.lines).filter((l) => l.stream === "stdout").map((l) => l.line);
    expect(lines).toEqual(["one", "two"]);
    expect(batches.at(-1)!.run).toEqual({ status: "FAILED", exitCode: 4 });
    expect(batches[0].run.status).toBe("RUNNING");
  });

  it("stops a run past its timeout with its whole process tree (TIMED_OUT)", async () => {
    const seconds = marker();
    const run = await start(`sleep ${seconds} & sleep ${seconds}; echo never`, 1);
    await waitFor(async () => processesWith(`sleep ${seconds}`).length >= 2 || (await owner.get(`/api/apps/${slug}/runs/${run.id}`)).body.status !== "RUNNING", 10_000, "the sleeps to start");
    const done = await finished(run.id);
    expect(done).toMatchObject({ status: "TIMED_OUT", exitCode: null, error: expect.stringMatching(/timeout of 1 s/) });
    expect(processesWith(`sleep ${seconds}`)).toEqual([]);
    expect(await output(run.id)).toEqual([]);
  });

  it("cancels a running run with its process tree (CANCELED); a second cancel is 409", async () => {
    const seconds = marker();
    const run = await start(`sleep ${seconds}`);
    await waitFor(async () => processesWith(`sleep ${seconds}`).length > 0, 10_000, "the sleep to start");
    const canceled = await owner.post(`/api/apps/${slug}/runs/${run.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: "CANCELED", exitCode: null, finishedAt: expect.any(String) });
    expect(processesWith(`sleep ${seconds}`)).toEqual([]);
    const again = await owner.post(`/api/apps/${slug}/runs/${run.id}/cancel`);
    expect([again.status, again.body.error.code]).toEqual([409, "conflict"]);
  });

  it("counts running runs with the app's instances against maxInstances (403 quota_exceeded naming the limit)", async () => {
    // maxInstances 2: the app's one instance and one run.
    const first = await start("sleep 60");
    const refused = await owner.post(`/api/apps/${slug}/runs`, { command: "echo hi" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "quota_exceeded", message: expect.stringMatching(/1 instances and 1 runs.*maxInstances of 2/) });
    expect((await owner.post(`/api/apps/${slug}/runs/${first.id}/cancel`)).body.status).toBe("CANCELED");
    const next = await start("echo again");
    expect((await finished(next.id)).status).toBe("SUCCEEDED");
  });

  it("fails the runs a platform restart interrupted, saying why, and never runs them again; not another live instance's, nor its own", async () => {
    const { db, runs } = server.slipway.platform;
    const app = await db.app.findUniqueOrThrow({ where: { slug } });
    const leftOver = (instanceId: string | null, createdAt = new Date()) => db.run.create({ data: { appId: app.id, command: "echo twice?", status: "RUNNING", timeoutSeconds: 60, startedAt: createdAt, createdAt, instanceId } });
    const seconds = marker();
    const running = await start(`sleep ${seconds}`);
    const beforeThisBoot = new Date(Date.now() - 24 * 60 * 60_000);
    const [earlierBoot, dead, unknown, elsewhere] = [await leftOver(runs.instanceId, beforeThisBoot), await leftOver("gone-instance"), await leftOver(null), await leftOver("live-instance")];
    // Created by this process a moment ago, not yet among the runs it tracks (its start still under way).
    const starting = await leftOver(runs.instanceId);
    await runs.failInterrupted(["live-instance"]);
    for (const left of [earlierBoot, dead, unknown]) {
      const res = await owner.get(`/api/apps/${slug}/runs/${left.id}`);
      expect(res.body).toMatchObject({ status: "FAILED", exitCode: null, error: expect.stringMatching(/platform restarted.*not run again/) });
      expect(await output(left.id)).toEqual([]);
    }
    expect((await owner.get(`/api/apps/${slug}/runs/${elsewhere.id}`)).body.status).toBe("RUNNING");
    expect((await owner.get(`/api/apps/${slug}/runs/${starting.id}`)).body.status).toBe("RUNNING");
    await db.run.update({ where: { id: starting.id }, data: { status: "CANCELED", finishedAt: new Date() } });
    expect((await owner.get(`/api/apps/${slug}/runs/${running.id}`)).body.status).toBe("RUNNING");
    await db.run.update({ where: { id: elsewhere.id }, data: { status: "CANCELED", finishedAt: new Date() } });
    expect((await owner.post(`/api/apps/${slug}/runs/${running.id}/cancel`)).body.status).toBe("CANCELED");
  });

  // Last: the platform's runs stop here for good (what its shutdown does first).
  it("kills what still runs when the platform stops, and fails it saying why", async () => {
    const seconds = marker();
    const run = await start(`sleep ${seconds}`);
    await server.slipway.platform.runs.close();
    expect((await owner.get(`/api/apps/${slug}/runs/${run.id}`)).body).toMatchObject({ status: "FAILED", error: expect.stringMatching(/platform stopped.*not run again/) });
    expect(processesWith(`sleep ${seconds}`)).toEqual([]);
  });
});
