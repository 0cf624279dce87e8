// Deploying from GitHub with real git: repositories made in the test, served from a file:// directory as
// GITHUB_URL; a branch, a commit, a missing ref, and names that must never reach git.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { requestApp, waitForDeployment } from "../helpers/apps.ts";
import { GitHubDouble, sendWebhook } from "../helpers/git.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: Client;
const github = new GitHubDouble();
let counter = 0;
const site = (text: string) => ({ "index.html": `<h1>${text}</h1>` });

beforeAll(async () => {
  server = await startServer({ GITHUB_URL: github.fileUrl, DEFAULT_MAX_APPS: "50", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

async function newApp(fields: Record<string, unknown> = {}): Promise<string> {
  const slug = `gh-${process.pid}-${++counter}`;
  const res = await owner.post("/api/apps", { slug, ...fields });
  expect(res.status).toBe(201);
  return slug;
}

async function buildLog(slug: string, deployment: string): Promise<string> {
  const res = await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${deployment}&limit=1000`);
  return res.body.map((l: { line: string }) => l.line).join("\n");
}

describe("POST /api/apps/:slug/deploy", () => {
  it("refuses callers without a session or token, and other users' apps", async () => {
    const slug = await newApp({ repo: "acme/site" });
    expect((await new Client(server.url).post(`/api/apps/${slug}/deploy`, {})).status).toBe(401);
    const other = new Client(server.url);
    await other.signup();
    expect((await other.post(`/api/apps/${slug}/deploy`, {})).status).toBe(404);
  });

  it("refuses bad input with 400 before anything is queued", async () => {
    const slug = await newApp();
    const cases: [Record<string, unknown>, string][] = [
      [{}, "repo"],
      [{ repo: "acme/../etc" }, "repo"],
      [{ repo: "acme/a..b" }, "repo"],
      [{ repo: "-acme/site" }, "repo"],
      [{ repo: "acme/site", branch: "--upload-pack=touch /tmp/pwned" }, "branch"],
      [{ repo: "acme/site", branch: "-b" }, "branch"],
      [{ repo: "acme/site", commit: "--output=/tmp/x" }, "commit"],
      [{ repo: "acme/site", commit: "abc123" }, "commit"],
    ];
    for (const [input, field] of cases) {
      const res = await owner.post(`/api/apps/${slug}/deploy`, input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(Object.keys(res.body.error.details.fields ?? res.body.error.details)).toContain(field);
    }
    expect((await owner.get(`/api/apps/${slug}`)).body.deployments).toEqual([]);
  });

  it("deploys the app's branch and shows the commit sha and message", async () => {
    const repo = `acme/site-${counter}`;
    const sha = github.create(repo, site("one"), "First version");
    const slug = await newApp({ repo: `https://github.com/${repo}`, branch: "main" });
    const res = await owner.post(`/api/apps/${slug}/deploy`, {});
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: "QUEUED", source: "github", repo, branch: "main", commit: null });
    const done = await waitForDeployment(owner, slug, res.body.id);
    expect(done).toMatchObject({ status: "LIVE", commit: sha, commitMessage: "First version" });
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toContain("one");
    const log = await buildLog(slug, res.body.id);
    expect(log).toContain(`Checked out ${repo}@${sha.slice(0, 7)}: First version`);
    // The release is the working tree only.
    const release = server.slipway.platform.engine.paths.release((await server.slipway.platform.db.app.findUniqueOrThrow({ where: { slug } })).id, res.body.id);
    expect((await import("node:fs")).existsSync(`${release}/.git`)).toBe(false);
  });

  it("deploys an exact commit, and another branch or repository given in the body", async () => {
    const repo = `acme/multi-${counter}`;
    const first = github.create(repo, site("v1"), "v1");
    github.commit(repo, site("v2"), "v2");
    github.commit(repo, site("feature"), "feature work", "feature");
    const slug = await newApp();
    const atCommit = await owner.post(`/api/apps/${slug}/deploy`, { repo, commit: first.toUpperCase() });
    expect(atCommit.status).toBe(202);
    expect(await waitForDeployment(owner, slug, atCommit.body.id)).toMatchObject({ status: "LIVE", commit: first, commitMessage: "v1" });
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toContain("v1");
    const onBranch = await owner.post(`/api/apps/${slug}/deploy`, { repo, branch: "feature" });
    expect(await waitForDeployment(owner, slug, onBranch.body.id)).toMatchObject({ status: "LIVE", branch: "feature", commitMessage: "feature work" });
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toContain("feature");
  });

  it("fails a deployment of a missing branch, commit or repository with a clear line, and the live release keeps serving", async () => {
    const repo = `acme/missing-${counter}`;
    github.create(repo, site("live"), "live");
    const slug = await newApp({ repo });
    await waitForDeployment(owner, slug, (await owner.post(`/api/apps/${slug}/deploy`, {})).body.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ branch: "nope" }, `The branch "nope" does not exist in ${repo}.`],
      [{ commit: "0123456789abcdef0123456789abcdef01234567" }, `The commit 0123456789abcdef0123456789abcdef01234567 was not found in ${repo}.`],
      [{ repo: "acme/no-such-repo" }, "Could not read acme/no-such-repo: it does not exist, or it is private (set a GitHub token for the app)."],
    ];
    for (const [input, message] of cases) {
      const res = await owner.post(`/api/apps/${slug}/deploy`, input);
      expect(res.status).toBe(202);
      const done = await waitForDeployment(owner, slug, res.body.id);
      expect(done, JSON.stringify(input)).toMatchObject({ status: "FAILED", error: message });
      expect(await buildLog(slug, res.body.id)).toContain(`Failed: ${message}`);
    }
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toContain("live");
  });
});

describe("the GitHub webhook without GITHUB_WEBHOOK_SECRET", () => {
  it("answers 401 to every delivery, signed or not", async () => {
    for (const secret of [undefined, "anything"]) expect((await sendWebhook(server.url, "ping", { zen: "x" }, { secret })).status).toBe(401);
    const info = await owner.post("/graphql", { query: "{ githubWebhook { payloadUrl secretConfigured } }" });
    expect(info.body.data.githubWebhook).toEqual({ payloadUrl: `${server.url}/api/github/webhook`, secretConfigured: false });
    expect((await new Client(server.url).post("/graphql", { query: "{ githubWebhook { payloadUrl } }" })).body.errors[0].extensions.code).toBe("unauthenticated");
  });
});

describe("private repositories over HTTPS (git http-backend requiring a token)", () => {
  const OPERATOR = "ghp_operatorTokenForTests0123456789";
  const PERSONAL = "ghp_personalTokenForTests9876543210";
  let privateServer: TestServer;
  let http: Awaited<ReturnType<GitHubDouble["serveHttp"]>>;
  let user: Client;
  /** The server's own log, at the most verbose level. */
  const serverLog: string[] = [];

  beforeAll(async () => {
    http = await github.serveHttp([OPERATOR, PERSONAL]);
    privateServer = await startServer(
      { GITHUB_URL: http.url, GITHUB_TOKEN: OPERATOR, DEFAULT_REQUESTS_PER_MINUTE: "100000", LOG_LEVEL: "trace" },
      { logStream: { write: (line) => void serverLog.push(line) } },
    );
    user = new Client(privateServer.url);
    await user.signup();
  });
  afterAll(async () => {
    await privateServer.close();
    await http.close();
  });

  const setToken = (client: Client, slug: string, token: string | null) =>
    client.post("/graphql", {
      query: `mutation($slug: String!, $token: String) { setAppGitHubToken(slug: $slug, token: $token) {
        __typename ... on App { hasGitHubToken } ... on Error { code message } } }`,
      variables: { slug, token },
    });

  it("refuses setting a token without access, for another user's app, or a malformed one; never shows it back", async () => {
    const slug = `priv-${process.pid}-a`;
    expect((await user.post("/api/apps", { slug, repo: "acme/private-a" })).status).toBe(201);
    expect((await setToken(new Client(privateServer.url), slug, PERSONAL)).body.errors[0].extensions.code).toBe("unauthenticated");
    const other = new Client(privateServer.url);
    await other.signup();
    expect((await setToken(other, slug, PERSONAL)).body.data.setAppGitHubToken).toMatchObject({ __typename: "NotFoundError" });
    const bad = (await setToken(user, slug, "has space")).body.data.setAppGitHubToken;
    expect(bad).toMatchObject({ __typename: "InvalidRequestError" });
    expect(bad.message).not.toContain("has space");
    expect((await setToken(user, slug, PERSONAL)).body.data.setAppGitHubToken).toEqual({ __typename: "App", hasGitHubToken: true });
    const stored = await privateServer.slipway.platform.db.app.findUniqueOrThrow({ where: { slug } });
    expect(stored.githubToken).not.toContain(PERSONAL);
    expect(JSON.stringify((await user.get(`/api/apps/${slug}`)).body)).not.toContain(PERSONAL);
    expect((await setToken(user, slug, null)).body.data.setAppGitHubToken).toEqual({ __typename: "App", hasGitHubToken: false });
  });

  it("clones with GITHUB_TOKEN, or the app's own token first, and no token appears in a log line or an answer", async () => {
    const repo = "acme/private-b";
    const sha = github.create(repo, site("private"), "private work");
    const slug = `priv-${process.pid}-b`;
    expect((await user.post("/api/apps", { slug, repo })).status).toBe(201);
    const before = http.requests.length;
    const viaOperator = await user.post(`/api/apps/${slug}/deploy`, {});
    expect(await waitForDeployment(user, slug, viaOperator.body.id)).toMatchObject({ status: "LIVE", commit: sha });
    // Sent as a header from the first request on: credentials in the URL would be sent only after a 401.
    expect(http.requests.slice(before).every((r) => r.token === OPERATOR && r.authorized)).toBe(true);

    expect((await setToken(user, slug, PERSONAL)).body.data.setAppGitHubToken.hasGitHubToken).toBe(true);
    const viaPersonal = await user.post(`/api/apps/${slug}/deploy`, {});
    expect(await waitForDeployment(user, slug, viaPersonal.body.id)).toMatchObject({ status: "LIVE", commit: sha });
    expect(http.requests.at(-1)).toMatchObject({ token: PERSONAL, authorized: true });
    expect((await requestApp(privateServer.url, `${slug}.localhost`)).body).toContain("private");

    expect((await setToken(user, slug, "ghp_wrongTokenForTests")).body.data.setAppGitHubToken.hasGitHubToken).toBe(true);
    const refused = await user.post(`/api/apps/${slug}/deploy`, {});
    const failed = await waitForDeployment(user, slug, refused.body.id);
    expect(failed).toMatchObject({ status: "FAILED", error: `Could not read ${repo}: it does not exist, or the GitHub token cannot read it.` });

    const answers = [];
    for (const id of [viaOperator.body.id, viaPersonal.body.id, refused.body.id]) {
      const log = await user.get(`/api/apps/${slug}/logs?kind=build&deployment=${id}&limit=1000`);
      expect(log.body.length).toBeGreaterThan(3);
      answers.push(JSON.stringify(log.body));
    }
    answers.push(JSON.stringify((await user.get(`/api/apps/${slug}`)).body));
    expect(serverLog.join("")).toContain("/api/apps/");
    for (const answer of [...answers, serverLog.join("")]) for (const token of [OPERATOR, PERSONAL, "ghp_wrongTokenForTests"]) expect(answer).not.toContain(token);
  });
});

describe("GITHUB_TOKEN", () => {
  it("is never echoed by a configuration error", async () => {
    const { loadConfig } = await import("../../server/config.ts");
    expect(() => loadConfig({ GITHUB_TOKEN: "ghp_secret with space" })).toThrow(/GITHUB_TOKEN: .*\(got \[redacted\]\)/);
    expect(() => loadConfig({ GITHUB_TOKEN: "ghp_secret with space" })).not.toThrow(/ghp_secret/);
  });
});
