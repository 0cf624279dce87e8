// What an app's address answers while no release serves it: the page names the real state (never deployed,
// deploying, deploy failed with the deployment's error, crashed, stopped), with the status codes of before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, uploadZip, waitFor, waitForDeployment, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: Client;
let counter = 0;
const newSlug = () => `page-${process.pid}-${++counter}`;
const nodeApp = (js: string, pkg: Record<string, unknown> = {}) => ({ "package.json": JSON.stringify({ name: "t", version: "1.0.0", ...pkg }), "server.js": js });
const SERVES = `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`;

beforeAll(async () => {
  server = await startServer({ DEFAULT_MAX_APPS: "20", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

async function newApp(): Promise<string> {
  const slug = newSlug();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  return slug;
}

const page = (slug: string) => requestApp(server.url, `${slug}.localhost`, "/");
const status = async (slug: string) => (await owner.get(`/api/apps/${slug}`)).body.status;

describe("the status page", () => {
  it("says Not deployed yet before the first deploy, Deploying… during it, and Not deployed yet again once it is canceled", async () => {
    const slug = await newApp();
    const created = await page(slug);
    expect([created.status, created.body]).toEqual([503, expect.stringContaining("<h1>Not deployed yet</h1>")]);
    const building = await uploadZip(owner, slug, await zipFolder(null, nodeApp(SERVES, { scripts: { build: "sleep 30" } })));
    await waitFor(async () => (await status(slug)) === "DEPLOYING", 10_000, "DEPLOYING");
    const deploying = await page(slug);
    expect([deploying.status, deploying.headers["retry-after"]]).toEqual([503, "10"]);
    expect(deploying.body).toContain("<h1>Deploying…</h1>");
    expect((await owner.post(`/api/apps/${slug}/deployments/${building.body.id}/cancel`)).status).toBe(200);
    expect((await waitForDeployment(owner, slug, building.body.id)).status).toBe("CANCELED");
    expect((await page(slug)).body).toContain("<h1>Not deployed yet</h1>");
  });

  it("says Deploy failed with the deployment's error, escaped", async () => {
    const slug = await newApp();
    const failed = await deploy(owner, slug, await zipFolder(null, { ...nodeApp(SERVES), "app.json": "<script>alert(1)</script>" }));
    expect(failed.status).toBe("FAILED");
    expect(failed.error).toMatch(/^app\.json is not valid JSON .*<script>/);
    const res = await page(slug);
    expect(res.status).toBe(503);
    expect(res.body).toContain("<h1>Deploy failed</h1>");
    expect(res.body).toContain("Deploy failed: app.json is not valid JSON");
    expect(res.body).toContain("&#60;script&#62;al");
    expect(res.body).not.toContain("<script>");
  });

  it("says Crashed while the app restarts with back-off, and Stopped once stopped", async () => {
    const slug = await newApp();
    // Once /crash was asked for, every start exits at once: the app stays CRASHED, restarting with back-off.
    const { id } = await server.slipway.platform.db.app.findUniqueOrThrow({ where: { slug } });
    const flag = server.slipway.platform.engine.appDataPath(id, "crashed").inApp;
    expect((await owner.post(`/api/apps/${slug}/env`, { FLAG: flag })).status).toBe(200);
    const js = `
      const fs = require("fs");
      if (fs.existsSync(process.env.FLAG)) process.exit(1);
      require("http").createServer((q, s) => { s.end("ok"); if (q.url === "/crash") { fs.writeFileSync(process.env.FLAG, "1"); process.exit(1); } }).listen(process.env.PORT);`;
    expect((await deploy(owner, slug, await zipFolder(null, nodeApp(js)))).status).toBe("LIVE");
    await requestApp(server.url, `${slug}.localhost`, "/crash").catch(() => {});
    await waitFor(async () => (await status(slug)) === "CRASHED", 10_000, "CRASHED");
    const crashed = await page(slug);
    expect(crashed.status).toBe(503);
    expect(crashed.body).toContain("<h1>Crashed</h1>");
    expect(crashed.body).toMatch(/restarts it, waiting longer after each crash/);

    expect((await owner.post(`/api/apps/${slug}/stop`)).status).toBe(200);
    const stopped = await page(slug);
    expect([stopped.status, stopped.body]).toEqual([503, expect.stringContaining("<h1>Stopped</h1>")]);
  });
});
