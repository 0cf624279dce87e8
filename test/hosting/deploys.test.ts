// Deployments beyond the happy path: bad uploads refused with nothing left behind, the per-app queue
// (supersede, cancel), and a crashing app restarted with exponential back-off.
import fs from "node:fs";
import path from "node:path";
import yazl from "yazl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, uploadZip, waitFor, waitForDeployment, zipFolder } from "../helpers/apps.ts";
import { TEST_RUNTIME } from "../helpers/runtime.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: Client;
let counter = 0;
const newSlug = () => `dep-${process.pid}-${++counter}`;
const nodeApp = (js: string, pkg: Record<string, unknown> = {}) => ({
  "package.json": JSON.stringify({ name: "t", version: "1.0.0", ...pkg }),
  "server.js": js,
});
const serve = (text: string) => `require("http").createServer((q, s) => s.end(${JSON.stringify(text)})).listen(process.env.PORT);`;

async function answer(slug: string, pathname = "/"): Promise<string> {
  const target = server.slipway.platform.engine.routes.lookup(slug);
  if (target.kind !== "proxy") return `(${target.kind})`;
  return fetch(`http://${target.upstreams[0].host}:${target.upstreams[0].port}${pathname}`).then((r) => r.text(), () => "(refused)");
}

async function newApp(): Promise<string> {
  const slug = newSlug();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  return slug;
}

beforeAll(async () => {
  server = await startServer({ DEFAULT_MAX_APPS: "50", DEFAULT_REQUESTS_PER_MINUTE: "100000", DEFAULT_MAX_UPLOAD_BYTES: String(256 * 1024) });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

/** A zip with one entry named exactly `name` (yazl refuses unsafe names, so the name is patched in afterwards). */
async function zipWithEntry(name: string, contents = "x"): Promise<Buffer> {
  const placeholder = "p".repeat(name.length);
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(contents), placeholder);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  let at = bytes.indexOf(placeholder);
  while (at !== -1) {
    bytes.write(name, at, "latin1");
    at = bytes.indexOf(placeholder, at + 1);
  }
  return bytes;
}

describe("uploads", () => {
  it("refuses bad zips with 400 naming the problem, an oversize one with 413, and keeps nothing", async () => {
    const slug = await newApp();
    const cases: [Buffer, number, RegExp][] = [
      [await zipWithEntry("../../escape.js"), 400, /escape\.js/],
      [await zipWithEntry("/etc/evil"), 400, /evil/],
      [Buffer.from("this is not a zip"), 400, /not a valid zip/],
      [(await zipFolder(null, nodeApp(serve("x")))).subarray(0, 60), 400, /zip/],
      [Buffer.alloc(300 * 1024, 1), 413, /maxUploadBytes/],
    ];
    for (const [zip, status, message] of cases) {
      const res = await uploadZip(owner, slug, zip);
      expect(res.status, String(message)).toBe(status);
      expect(res.body.error.message).toMatch(message);
    }
    const notMultipart = await owner.request("PUT", `/api/apps/${slug}/deploy`, { body: "x", headers: { "content-type": "application/zip" } });
    expect(notMultipart.status).toBe(415);
    const cutOff = `--b\r\ncontent-disposition: form-data; name="file"; filename="a.zip"\r\ncontent-type: application/zip\r\n\r\nPK\u0003\u0004 and then nothing`;
    const truncated = await owner.request("PUT", `/api/apps/${slug}/deploy`, { body: cutOff, headers: { "content-type": "multipart/form-data; boundary=b" } });
    expect(truncated.status).toBe(400);
    expect((await owner.get(`/api/apps/${slug}`)).body.deployments).toEqual([]);
    const appDir = path.join(server.config.dataDir, "apps");
    const leftovers = fs.existsSync(appDir) ? fs.readdirSync(appDir, { recursive: true }).filter((f) => /(releases|sources)\//.test(String(f))) : [];
    expect(leftovers).toEqual([]);
    expect(fs.readdirSync(path.join(server.config.dataDir, "uploads"))).toEqual([]);
    expect(fs.existsSync(path.resolve(server.config.dataDir, "../escape.js"))).toBe(false);
  });
});

describe("the deploy queue", () => {
  it("builds one deployment at a time per app; a newer upload supersedes one still queued; a running one can be canceled", async () => {
    const slug = await newApp();
    const v1 = await deploy(owner, slug, await zipFolder(null, nodeApp(serve("v1"))));
    expect(v1.status).toBe("LIVE");
    const slow = nodeApp(serve("slow"), { scripts: { build: "sleep 30" } });
    const building = await uploadZip(owner, slug, await zipFolder(null, slow));
    const queued = await uploadZip(owner, slug, await zipFolder(null, nodeApp(serve("queued"))));
    const newest = await uploadZip(owner, slug, await zipFolder(null, nodeApp(serve("newest"))));
    const superseded = await waitForDeployment(owner, slug, queued.body.id);
    expect(superseded.status).toBe("SUPERSEDED");
    await waitFor(async () => (await owner.get(`/api/apps/${slug}`)).body.deployments.find((d: { id: string }) => d.id === building.body.id).status === "BUILDING");
    const cancel = await owner.post(`/api/apps/${slug}/deployments/${building.body.id}/cancel`);
    expect(cancel.status).toBe(200);
    expect((await waitForDeployment(owner, slug, building.body.id)).status).toBe("CANCELED");
    expect((await waitForDeployment(owner, slug, newest.body.id)).status).toBe("LIVE");
    expect(await answer(slug)).toBe("newest");
    expect((await owner.post(`/api/apps/${slug}/deployments/${building.body.id}/cancel`)).status).toBe(409);
    const log = await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${building.body.id}&limit=1000`);
    expect(log.body.map((l: { line: string }) => l.line)).toContain("Canceled: the previous release keeps serving.");
    // The fetch step extracted each built upload; those that never built (superseded) or stopped (canceled) are gone too.
    const newestLog = await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${newest.body.id}&limit=1000`);
    expect(newestLog.body.map((l: { line: string }) => l.line)).toContainEqual(expect.stringMatching(/^Extracted 2 files \(.+\) from the zip\.$/));
    const appId = (await server.slipway.platform.db.app.findUniqueOrThrow({ where: { slug } })).id;
    expect(fs.readdirSync(path.dirname(server.slipway.platform.engine.paths.sourceZip(appId, newest.body.id)))).toEqual([]);
  });
});

describe("what a reader sees", () => {
  it("never sees a settled deployment next to an app still DEPLOYING: both change in one write", async () => {
    const slug = await newApp();
    const { db, pubsub } = server.slipway.platform;
    const { id } = await db.app.findUniqueOrThrow({ where: { slug } });
    // Every event of the app waits for a read of what is stored at that moment, so each write is seen alone.
    const seen: string[] = [];
    const publish = pubsub.publish;
    pubsub.publish = async (topic, message) => {
      if (topic === `app:${id}`) {
        const app = await db.app.findUniqueOrThrow({ where: { id }, include: { deployments: { orderBy: { createdAt: "desc" }, take: 1 } } });
        seen.push(`${app.deployments[0]?.status} ${app.status}`);
      }
      return publish.call(pubsub, topic, message);
    };
    try {
      expect((await deploy(owner, slug, await zipFolder(null, nodeApp(serve("v1"))))).status).toBe("LIVE");
      const fails = nodeApp("process.exit(3)");
      expect((await deploy(owner, slug, await zipFolder(null, fails))).status).toBe("FAILED");
      // The deploy is seen FAILED once it is written; the event after that write, and the read above, may still be under way.
      await waitFor(async () => seen.some((s) => s.startsWith("FAILED ")), 10_000, "the failed deployment's event");
    } finally {
      pubsub.publish = publish;
    }
    const settled = seen.filter((s) => /^(LIVE|FAILED) /.test(s));
    expect(settled.length).toBeGreaterThanOrEqual(2);
    expect(settled.filter((s) => s.endsWith(" DEPLOYING"))).toEqual([]);
    expect(seen).toContain("LIVE RUNNING");
    expect(seen).toContain("FAILED RUNNING"); // the previous release keeps serving
  });
});

describe("supervision", () => {
  // Swarm restarts a crashed task after a fixed delay (its RestartPolicy), not with Slipway's back-off: swarm.test.ts covers it.
  const onSwarm = TEST_RUNTIME === "swarm";
  it.skipIf(onSwarm)(`restarts a crashed app with exponential back-off, shows CRASHED meanwhile, and recovers${onSwarm ? " (SKIPPED on swarm: Swarm's fixed restart delay, see swarm.test.ts)" : ""}`, async () => {
    const slug = await newApp();
    // Starts 2 and 3 crash shortly after answering; /crash ends the first one. The count survives restarts in the
    // app's data folder (the release folder is read-only on container runtimes).
    const { id } = await server.slipway.platform.db.app.findUniqueOrThrow({ where: { slug } });
    const starts = server.slipway.platform.engine.appDataPath(id, "starts").inApp;
    expect((await owner.post(`/api/apps/${slug}/env`, { STARTS_FILE: starts })).status).toBe(200);
    const app = `
      const fs = require("fs");
      const file = process.env.STARTS_FILE;
      const n = Number(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : 0) + 1;
      fs.writeFileSync(file, String(n));
      require("http").createServer((q, s) => { s.end("start " + n); if (q.url === "/crash") process.exit(1); }).listen(process.env.PORT);
      if (n === 2 || n === 3) setTimeout(() => process.exit(2), 300);`;
    await deploy(owner, slug, await zipFolder(null, nodeApp(app)));
    expect(await answer(slug)).toBe("start 1");
    await answer(slug, "/crash").catch(() => {});
    await waitFor(async () => (await owner.get(`/api/apps/${slug}`)).body.status === "CRASHED", 5000, "CRASHED");
    await waitFor(async () => (await answer(slug)) === "start 4", 30_000, "the fourth start");
    const details = await owner.graphql(`query($slug: String!) { app(slug: $slug) { status restarts } }`, { slug });
    expect(details.body.data.app).toEqual({ status: "RUNNING", restarts: 3 });
    const lines = (await owner.get(`/api/apps/${slug}/logs?limit=1000`)).body.map((l: { line: string }) => l.line).filter((l: string) => l.startsWith("Crashed"));
    expect(lines).toEqual([
      expect.stringMatching(/exit code 1.*Restarting in 1 s \(failure 1 in a row\)/),
      expect.stringMatching(/exit code 2.*Restarting in 2 s \(failure 2 in a row\)/),
      expect.stringMatching(/exit code 2.*Restarting in 4 s \(failure 3 in a row\)/),
    ]);
  });

  it("keeps an app stopped when the stop comes during a restart for new env vars, and applies the newest of two quick changes", async () => {
    const slug = await newApp();
    // Answers only after 1.5 s, so the restarts below are still starting when the next call comes.
    const slow = `console.log("starting " + process.env.A); process.on("SIGTERM", () => { console.log("stopping " + process.env.A); process.exit(0); });
      setTimeout(() => require("http").createServer((q, s) => s.end(String(process.env.A) + String(process.env.B))).listen(process.env.PORT), 1500);`;
    const logged = async (line: string) => ((await owner.get(`/api/apps/${slug}/logs?kind=runtime&limit=1000`)).body as { line: string }[]).some((l) => l.line === line);
    expect((await deploy(owner, slug, await zipFolder(null, nodeApp(slow)))).status).toBe("LIVE");
    await owner.post(`/api/apps/${slug}/env`, { A: "one" });
    await owner.post(`/api/apps/${slug}/env`, { B: "two" });
    await waitFor(async () => (await answer(slug)) === "onetwo", 20_000, "both variables");
    await owner.post(`/api/apps/${slug}/env`, { A: "three" });
    await waitFor(() => logged("starting three"), 10_000, "the restart's instance started");
    expect((await owner.post(`/api/apps/${slug}/stop`)).body.status).toBe("STOPPED");
    // The restart under way when the stop came ends there: its instance is stopped, not made live.
    await waitFor(() => logged("stopping three"), 10_000, "the restart's instance stopped");
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("STOPPED");
    expect(server.slipway.platform.engine.routes.lookup(slug)).toMatchObject({ kind: "unavailable", status: "STOPPED" });
  });

  it("puts an app back to CREATED when its first deployment is canceled", async () => {
    const slug = await newApp();
    const slow = await uploadZip(owner, slug, await zipFolder(null, nodeApp(serve("x"), { scripts: { build: "sleep 30" } })));
    await waitFor(async () => (await owner.get(`/api/apps/${slug}`)).body.deployments[0].status === "BUILDING", 20_000, "BUILDING");
    expect((await owner.post(`/api/apps/${slug}/deployments/${slow.body.id}/cancel`)).status).toBe(200);
    expect((await waitForDeployment(owner, slug, slow.body.id)).status).toBe("CANCELED");
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("CREATED");
  });
});
