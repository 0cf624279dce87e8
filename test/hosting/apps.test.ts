// Apps through the API: who may do what, the app lifecycle, zip deploys with their build log, env vars,
// stop/restart, rollback, and failures that leave the previous release serving.
import path from "node:path";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, FIXTURES, uploadZip, waitFor, waitForDeployment, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: Client;
let counter = 0;
const newSlug = () => `app-${process.pid}-${++counter}`;

/** What the app answers at `/` right now (through the engine's route to it). */
async function answer(slug: string): Promise<string> {
  const target = server.slipway.platform.engine.routes.lookup(slug);
  if (target.kind !== "proxy") return `(${target.kind})`;
  const res = await fetch(`http://${target.upstreams[0].host}:${target.upstreams[0].port}/`);
  return res.text();
}

beforeAll(async () => {
  server = await startServer({ DEFAULT_MAX_APPS: "50", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

describe("apps API", () => {
  it("refuses anonymous callers and hides other users' apps (404 on every route)", async () => {
    const slug = newSlug();
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    const anonymous = new Client(server.url);
    expect((await anonymous.get("/api/apps")).status).toBe(401);
    const stranger = new Client(server.url);
    await stranger.signup();
    const zip = await zipFolder(path.join(FIXTURES, "static"));
    const attempts = await Promise.all([
      stranger.get(`/api/apps/${slug}`),
      stranger.request("PATCH", `/api/apps/${slug}`, { json: { name: "x" } }),
      stranger.request("DELETE", `/api/apps/${slug}`),
      uploadZip(stranger, slug, zip),
      stranger.post(`/api/apps/${slug}/stop`),
      stranger.post(`/api/apps/${slug}/restart`),
      stranger.post(`/api/apps/${slug}/rollback`, {}),
      stranger.get(`/api/apps/${slug}/logs`),
      stranger.get(`/api/apps/${slug}/env`),
      stranger.post(`/api/apps/${slug}/env`, { A: "b" }),
      stranger.request("DELETE", `/api/apps/${slug}/env?key=A`),
    ]);
    expect(attempts.map((r) => r.status)).toEqual(Array(attempts.length).fill(404));
    expect((await stranger.get("/api/apps")).body).toEqual([]);
  });

  it("creates, lists, edits and validates apps", async () => {
    const slug = newSlug();
    const created = await owner.post("/api/apps", { slug, repo: "https://github.com/ada/site.git" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug, name: slug, status: "CREATED", repo: "ada/site", branch: "main", autoDeploy: false });
    expect(created.body.url).toBe(`http://${slug}.localhost:${new URL(server.url).port}/`);
    expect((await owner.post("/api/apps", { slug })).status).toBe(409);
    const bad = await owner.post("/api/apps", { slug: "Bad_Slug", repo: "not a repo", branch: "-x" });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details.fields).sort()).toEqual(["branch", "repo", "slug"]);
    expect((await owner.post("/api/apps", { slug: "www" })).status).toBe(400);
    const edited = await owner.request("PATCH", `/api/apps/${slug}`, { json: { name: "Site", autoDeploy: true, previews: true } });
    expect(edited.body).toMatchObject({ name: "Site", autoDeploy: true, previews: true });
    const list = await owner.get("/api/apps");
    expect(list.body[0].slug).toBe(slug);
    expect((await owner.post(`/api/apps/${slug}/restart`)).status).toBe(409);
  });

  it("answers 403 quota_exceeded past maxApps", async () => {
    const small = await startServer({ DEFAULT_MAX_APPS: "1" });
    try {
      const user = new Client(small.url);
      await user.signup();
      expect((await user.post("/api/apps", { slug: newSlug() })).status).toBe(201);
      const over = await user.post("/api/apps", { slug: newSlug() });
      expect(over.status).toBe(403);
      expect(over.body.error.code).toBe("quota_exceeded");
    } finally {
      await small.close();
    }
  });
});

describe("zip deploys", () => {
  it("deploys a Node app, logs the build step by step, and serves it", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    const deployment = await deploy(owner, slug, await zipFolder(path.join(FIXTURES, "node-plain")));
    expect(deployment).toMatchObject({ status: "LIVE", source: "zip", error: null, rollbackable: true });
    expect(deployment.steps.map((s: { name: string }) => s.name)).toEqual(["fetch", "detect", "build", "release", "start", "health", "switch", "retire"]);
    expect(await answer(slug)).toBe("hello from node-plain\n");
    const app = await owner.get(`/api/apps/${slug}`);
    expect(app.body.status).toBe("RUNNING");
    const build = await owner.get(`/api/apps/${slug}/logs?kind=build&limit=1000`);
    const text = build.body.map((l: { line: string }) => l.line).join("\n");
    expect(text).toContain("-----> Building");
    expect(text).toContain("-----> Sending traffic to the new release");
    const runtime = await waitFor(async () => {
      const res = await owner.get(`/api/apps/${slug}/logs`);
      return res.body.find((l: { line: string }) => l.line.startsWith("listening on")) ? res.body : null;
    });
    expect(runtime[0]).toMatchObject({ kind: "runtime", stream: "stdout", deploymentId: deployment.id });
  });

  it("fails an unknown project with a build-log line saying what was looked for", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    const deployment = await deploy(owner, slug, await zipFolder(null, { "README.md": "hi" }));
    expect(deployment.status).toBe("FAILED");
    expect(deployment.error).toMatch(/^No Dockerfile, package.json, .*, Procfile or index.html found at the top of the project: it holds README.md\./);
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("FAILED");
  });

  it("keeps the previous release serving when a deploy fails, then rolls back without building", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    const v1 = await deploy(owner, slug, await zipFolder(null, nodeApp(server1("v1"))));
    const v2 = await deploy(owner, slug, await zipFolder(null, nodeApp(server1("v2"))));
    expect([v1.status, v2.status]).toEqual(["LIVE", "LIVE"]);
    expect(await answer(slug)).toBe("v2");
    const broken = await deploy(owner, slug, await zipFolder(null, nodeApp("process.exit(3)")));
    expect(broken.status).toBe("FAILED");
    expect(broken.error).toMatch(/exit code 3/);
    expect(await answer(slug)).toBe("v2");
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("RUNNING");

    const rollback = await owner.post(`/api/apps/${slug}/rollback`, {});
    expect(rollback.status).toBe(202);
    const done = await waitForDeployment(owner, slug, rollback.body.id);
    expect(done).toMatchObject({ status: "LIVE", rollbackOf: v1.id });
    expect(done.steps.map((s: { name: string }) => s.name)).toEqual(["start", "health", "switch", "retire"]);
    expect(await answer(slug)).toBe("v1");
    const explicit = await owner.post(`/api/apps/${slug}/rollback`, { deployment: v2.id });
    expect((await waitForDeployment(owner, slug, explicit.body.id)).status).toBe("LIVE");
    expect(await answer(slug)).toBe("v2");
    expect((await owner.post(`/api/apps/${slug}/rollback`, { deployment: broken.id })).status).toBe(400);
  });

  it("sets env vars (the running app restarts with them, values redacted from logs) and removes them", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    const app = `require("http").createServer((q, s) => s.end(String(process.env.GREETING))).listen(process.env.PORT, () => console.log("secret is " + process.env.GREETING));`;
    await deploy(owner, slug, await zipFolder(null, nodeApp(app)));
    const bad = await owner.post(`/api/apps/${slug}/env`, { "1BAD": "x", PORT: "1" });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details.fields).sort()).toEqual(["1BAD", "PORT"]);
    const set = await owner.post(`/api/apps/${slug}/env`, { GREETING: "hunter2-secret", B: "1" });
    expect(set.body).toEqual([{ key: "B", value: "1" }, { key: "GREETING", value: "hunter2-secret" }]);
    await waitFor(async () => (await answer(slug)) === "hunter2-secret", 20_000, "the restart with the new env");
    const logs = await waitFor(async () => {
      const res = await owner.get(`/api/apps/${slug}/logs`);
      // The restarted instance's line: with containers, it may reach the log a moment after the app answers.
      return res.body.some((l: { line: string }) => l.line === "secret is [redacted]") ? res.body : null;
    });
    const lines = logs.map((l: { line: string }) => l.line).join("\n");
    expect(lines).toContain("secret is [redacted]");
    expect(lines).not.toContain("hunter2-secret");
    expect((await owner.request("DELETE", `/api/apps/${slug}/env?key=GREETING`)).status).toBe(204);
    expect((await owner.get(`/api/apps/${slug}/env`)).body).toEqual([{ key: "B", value: "1" }]);
    await waitFor(async () => (await answer(slug)) === "undefined", 20_000, "the restart without the variable");
  });

  it("tells the app subscription about a deployment queued behind one that is building", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    const slowBuild = { ...nodeApp(server1("slow")), "package.json": JSON.stringify({ name: "t", version: "1.0.0", scripts: { build: "sleep 3" } }) };
    const first = await uploadZip(owner, slug, await zipFolder(null, slowBuild));
    await waitFor(async () => (await owner.get(`/api/apps/${slug}`)).body.deployments[0].status === "BUILDING", 20_000, "the first build");

    const ws = createClient({ url: `${server.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: withCookie(owner.cookie!), retryAttempts: 0 });
    const seen: { id: string; status: string }[][] = [];
    const dispose = ws.subscribe(
      { query: `subscription { app(slug: "${slug}") { deployments { id status } } }` },
      { next: (value) => void seen.push((value.data as { app: { deployments: { id: string; status: string }[] } }).app.deployments), error: () => {}, complete: () => {} },
    );
    try {
      await waitFor(async () => seen.length > 0, 5_000, "the subscription's first answer");
      const second = await uploadZip(owner, slug, await zipFolder(null, nodeApp(server1("next"))));
      const queued = await waitFor(async () => seen.at(-1)!.find((d) => d.id === second.body.id), 2_000, "the queued deployment");
      expect(queued.status).toBe("QUEUED");
      expect(seen.at(-1)!.find((d) => d.id === first.body.id)!.status).toBe("BUILDING");
      expect((await waitForDeployment(owner, slug, second.body.id)).status).toBe("LIVE");
    } finally {
      dispose();
      await ws.dispose();
    }
  });

  it("stops and restarts an app", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    await deploy(owner, slug, await zipFolder(null, nodeApp(server1("up"))));
    const stopped = await owner.post(`/api/apps/${slug}/stop`);
    expect(stopped.body.status).toBe("STOPPED");
    expect(await answer(slug)).toBe("(unavailable)");
    const restarted = await owner.post(`/api/apps/${slug}/restart`);
    expect(restarted.body.status).toBe("RUNNING");
    expect(await answer(slug)).toBe("up");
  });

  it("deletes an app with everything it runs", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    await deploy(owner, slug, await zipFolder(null, nodeApp(server1("bye"))));
    expect((await owner.request("DELETE", `/api/apps/${slug}`)).status).toBe(204);
    expect((await owner.get(`/api/apps/${slug}`)).status).toBe(404);
    expect(server.slipway.platform.engine.routes.lookup(slug).kind).toBe("unknown");
  });
});

/** A WebSocket class that sends the session cookie, as the browser does. */
function withCookie(cookie: string) {
  return class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers: { cookie } });
    }
  };
}

function server1(text: string): string {
  return `require("http").createServer((q, s) => s.end(${JSON.stringify(text)})).listen(process.env.PORT);`;
}

/** A Node app of one file: package.json (npm start runs server.js) and server.js. */
function nodeApp(serverJs: string): Record<string, string> {
  return { "package.json": JSON.stringify({ name: "t", version: "1.0.0" }), "server.js": serverJs };
}
