// The GitHub webhook with real git: deliveries shaped like GitHub's (test/fixtures/github/*.json), signed over
// the raw bytes, deploying pushes and pull requests (preview apps) from repositories made in the test.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { requestApp, waitFor, waitForDeployment } from "../helpers/apps.ts";
import { GitHubDouble, sendWebhook } from "../helpers/git.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const SECRET = "webhook-secret-for-tests";
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/github");
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), "utf8"));

let server: TestServer;
let owner: Client;
const github = new GitHubDouble();
let counter = 0;
const site = (text: string) => ({ "index.html": `<h1>${text}</h1>` });

beforeAll(async () => {
  server = await startServer({ GITHUB_URL: github.fileUrl, GITHUB_WEBHOOK_SECRET: SECRET, PREVIEWS_PER_APP: "1", DEFAULT_MAX_APPS: "50", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

/** A repository with one commit and an app on it; returns both names and the commit. */
async function project(fields: Record<string, unknown> = { autoDeploy: true }) {
  const n = ++counter;
  const repo = `Octo-${n}/Site`;
  const sha = github.create(repo, site(`first ${n}`), "first");
  const slug = `wh-${process.pid}-${n}`;
  const { previews, ...create } = fields;
  expect((await owner.post("/api/apps", { slug, repo, ...create })).status).toBe(201);
  if (previews) expect((await owner.request("PATCH", `/api/apps/${slug}`, { json: { previews } })).status).toBe(200);
  return { repo, slug, sha };
}

function push(repo: string, after: string, overrides: Record<string, unknown> = {}) {
  const payload = fixture("push");
  payload.repository.full_name = repo;
  payload.after = after;
  payload.head_commit.id = after;
  payload.head_commit.message = "Pushed change\n\nbody";
  return { ...payload, ...overrides };
}

const deploymentsOf = async (slug: string) => (await owner.get(`/api/apps/${slug}`)).body.deployments as { id: string; status: string }[];

describe("POST /api/github/webhook", () => {
  it("answers 401 and does nothing without a valid signature over the raw bytes", async () => {
    const { repo, slug } = await project();
    const sha = github.commit(repo, site("unsigned"), "unsigned");
    const payload = push(repo, sha);
    const body = JSON.stringify(payload, null, 2);
    const reserialised = `sha256=${(await import("node:crypto")).createHmac("sha256", SECRET).update(JSON.stringify(payload)).digest("hex")}`;
    for (const options of [{}, { secret: "wrong-secret" }, { signature: "sha256=" }, { signature: "sha1=abc" }, { signature: reserialised }]) {
      const res = await sendWebhook(server.url, "push", body, options);
      expect(res.status, JSON.stringify(options)).toBe(401);
      expect(res.body.error.code).toBe("unauthenticated");
    }
    expect(await deploymentsOf(slug)).toEqual([]);
  });

  it("answers a ping with 200 and refuses a malformed payload with 400", async () => {
    expect(await sendWebhook(server.url, "ping", fixture("ping"), { secret: SECRET })).toMatchObject({ status: 200 });
    expect((await sendWebhook(server.url, "push", "{not json", { secret: SECRET })).status).toBe(400);
    expect((await sendWebhook(server.url, "push", { ref: 1 }, { secret: SECRET })).status).toBe(400);
    expect((await sendWebhook(server.url, "push", push("a/b", "--upload-pack=x"), { secret: SECRET })).status).toBe(400);
    expect((await sendWebhook(server.url, "pull_request", { action: "opened" }, { secret: SECRET })).status).toBe(400);
  });

  it("deploys a push to the app's branch (repository name in any case) with the head commit's message, once per delivery", async () => {
    const { repo, slug } = await project();
    const manual = await project({ autoDeploy: false });
    const sha = github.commit(repo, site("pushed"), "Pushed change\n\nbody");
    const delivery = crypto.randomUUID();
    const res = await sendWebhook(server.url, "push", push(repo.toUpperCase(), sha), { secret: SECRET, delivery });
    expect(res.status).toBe(202);
    expect(res.body.deployments).toEqual([{ app: slug, id: expect.any(String) }]);
    const done = await waitForDeployment(owner, slug, res.body.deployments[0].id);
    expect(done).toMatchObject({ status: "LIVE", source: "github", commit: sha, commitMessage: "Pushed change", branch: "main" });
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toContain("pushed");

    const replay = await sendWebhook(server.url, "push", push(repo, sha), { secret: SECRET, delivery });
    expect(replay).toMatchObject({ status: 200, body: { duplicate: true, deployments: [] } });
    expect(await deploymentsOf(slug)).toHaveLength(1);
    expect(await deploymentsOf(manual.slug)).toEqual([]);
  });

  it("deploys nothing for another branch, a tag, or a branch deletion", async () => {
    const { repo, slug } = await project();
    const sha = github.commit(repo, site("other"), "other", "other");
    const cases = [
      push(repo, sha, { ref: "refs/heads/other" }),
      push(repo, sha, { ref: "refs/tags/v1.0.0" }),
      push(repo, "0000000000000000000000000000000000000000", { deleted: true }),
    ];
    for (const payload of cases) {
      const res = await sendWebhook(server.url, "push", payload, { secret: SECRET });
      expect(res, JSON.stringify(payload.ref)).toMatchObject({ status: 202, body: { deployments: [] } });
    }
    expect(await deploymentsOf(slug)).toEqual([]);
  });

  it("builds only the newest of a burst of pushes", async () => {
    const { repo, slug } = await project();
    const shas = [1, 2, 3].map((i) => github.commit(repo, site(`burst ${i}`), `burst ${i}`));
    const ids = [];
    for (const sha of shas) ids.push((await sendWebhook(server.url, "push", push(repo, sha), { secret: SECRET })).body.deployments[0].id);
    const settled = await Promise.all(ids.map((id) => waitForDeployment(owner, slug, id)));
    expect(settled.at(-1)).toMatchObject({ status: "LIVE", commit: shas[2] });
    expect(settled[1].status).toBe("SUPERSEDED");
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toContain("burst 3");
  });
});

describe("preview apps", () => {
  it("deploys a pull request as pr-<n>-<slug> with the parent's env vars, redeploys it on synchronize, and deletes it when closed", async () => {
    const { repo, slug } = await project({ previews: true });
    expect((await owner.post(`/api/apps/${slug}/env`, { GREETING: "hello" })).status).toBe(200);
    // The parent's database URL is not handed to pull requests.
    expect((await owner.post(`/api/apps/${slug}/resources`, {})).status).toBe(201);
    const head = github.commit(repo, site("pr two"), "PR work", "changes");
    github.pullRef(repo, 2, "changes");
    const opened = { ...fixture("pull_request"), repository: { full_name: repo } };
    opened.pull_request.head.sha = head;

    const res = await sendWebhook(server.url, "pull_request", opened, { secret: SECRET });
    expect(res.status).toBe(202);
    const preview = `pr-2-${slug}`;
    expect(res.body.deployments).toEqual([{ app: preview, id: expect.any(String) }]);
    expect(await waitForDeployment(owner, preview, res.body.deployments[0].id)).toMatchObject({ status: "LIVE", commit: head });
    expect((await requestApp(server.url, `${preview}.localhost`)).body).toContain("pr two");
    expect((await owner.get(`/api/apps/${preview}/env`)).body).toEqual([{ key: "GREETING", value: "hello" }]);
    const graph = await owner.post("/graphql", { query: `{ app(slug: "${slug}") { previewApps { slug previewOf { slug } } } }` });
    expect(graph.body.data.app.previewApps).toEqual([{ slug: preview, previewOf: { slug } }]);
    // Previews count in no quota.
    expect((await owner.get("/api/me")).body.quota.usage.apps).toBe(counter);

    // The parent may have one preview (PREVIEWS_PER_APP=1): another pull request is skipped.
    const third = { ...opened, number: 3, pull_request: { ...opened.pull_request, number: 3 } };
    const skipped = await sendWebhook(server.url, "pull_request", third, { secret: SECRET });
    expect(skipped.body).toMatchObject({ deployments: [], skipped: [{ app: `pr-3-${slug}` }] });

    expect((await owner.post(`/api/apps/${slug}/env`, { GREETING: "updated" })).status).toBe(200);
    const next = github.commit(repo, site("pr two v2"), "PR work 2", "changes");
    github.pullRef(repo, 2, "changes");
    const sync = { ...opened, action: "synchronize", pull_request: { ...opened.pull_request, head: { ...opened.pull_request.head, sha: next } } };
    const synced = await sendWebhook(server.url, "pull_request", sync, { secret: SECRET });
    expect(await waitForDeployment(owner, preview, synced.body.deployments[0].id)).toMatchObject({ status: "LIVE", commit: next });
    expect((await requestApp(server.url, `${preview}.localhost`)).body).toContain("pr two v2");
    expect((await owner.get(`/api/apps/${preview}/env`)).body).toEqual([{ key: "GREETING", value: "updated" }]);

    // A database of the preview goes with it, its backups' stored bytes included.
    const database = await owner.post(`/api/apps/${preview}/resources`, { name: "preview" });
    expect(database.status).toBe(201);
    expect((await owner.post(`/api/resources/${database.body.id}/backups`)).status).toBe(201);
    const { storageKey } = await server.slipway.platform.db.backup.findFirstOrThrow({ where: { resourceId: database.body.id } });
    expect(await server.slipway.platform.storage.stat(storageKey)).not.toBeNull();
    const closed = await sendWebhook(server.url, "pull_request", { ...opened, action: "closed" }, { secret: SECRET });
    expect(closed).toMatchObject({ status: 200, body: { deleted: [preview] } });
    const audited = await server.slipway.platform.db.auditEvent.findMany({ where: { action: "app.delete", actorId: null } });
    expect(audited.map((e) => e.details)).toContainEqual({ slug: preview, via: "github", pullRequest: expect.any(Number) });
    expect(await server.slipway.platform.db.resource.count({ where: { id: database.body.id } })).toBe(0);
    expect(await server.slipway.platform.storage.stat(storageKey)).toBeNull();
    expect((await owner.get(`/api/apps/${preview}`)).status).toBe(404);
    await waitFor(async () => (await requestApp(server.url, `${preview}.localhost`)).status === 404, 5000, "the preview's host to be gone");

    // Reopened, then the parent is deleted: its preview goes with it.
    const reopened = await sendWebhook(server.url, "pull_request", { ...sync, action: "reopened" }, { secret: SECRET });
    await waitForDeployment(owner, preview, reopened.body.deployments[0].id);
    expect((await owner.request("DELETE", `/api/apps/${slug}`)).status).toBe(204);
    expect((await owner.get(`/api/apps/${preview}`)).status).toBe(404);
    await waitFor(async () => (await requestApp(server.url, `${preview}.localhost`)).status === 404, 5000, "the preview's host to be gone");
  });
});
