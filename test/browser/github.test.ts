// The app page's GitHub panel in Chromium against the real server (serving web/build: run `npm run build:web`
// first), with GITHUB_URL pointing at a folder of bare git repositories made here: setting the repository and
// branch, deploying from GitHub while the build log of that deployment streams, the commit in the deployments
// list, the token of a private repository (shown only as set or not), the webhook set-up once auto-deploy is on,
// a pull request's preview app on its parent's page and the way back from it, and a read-only account.
// It needs the server's GitHub deploys (the deployRepo mutation): until the server has them, it is skipped.
import { execFileSync } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

const WEBHOOK_SECRET = "browser-test-webhook-secret";

let server: TestServer;
let browser: Browser;
let githubDir: string;
const contexts: BrowserContext[] = [];

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8" }).trim();
}

/**
 * A bare repository at `<githubDir>/<owner>/<name>.git` (what GITHUB_URL=file://<githubDir> clones for owner/name)
 * holding a Node app that answers `<greeting>` on PORT, committed with `message` to `branch`. Answers the commit's sha.
 */
function pushApp(repo: string, branch: string, greeting: string, message: string): string {
  const bare = path.join(githubDir, `${repo}.git`);
  if (!fs.existsSync(bare)) {
    fs.mkdirSync(bare, { recursive: true });
    git(bare, "init", "--bare", "--quiet");
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-github-work-"));
  try {
    git(work, "init", "--quiet");
    git(work, "checkout", "--quiet", "-b", branch);
    fs.writeFileSync(path.join(work, "package.json"), JSON.stringify({ name: "hello", version: "1.0.0", scripts: { start: "node server.js" } }));
    const server = `require("http").createServer((q, s) => s.end(${JSON.stringify(greeting)})).listen(process.env.PORT, () => console.log("listening on " + process.env.PORT));\n`;
    fs.writeFileSync(path.join(work, "server.js"), server);
    git(work, "add", "--all");
    git(work, "commit", "--quiet", "-m", message);
    git(work, "push", "--quiet", "--force", bare, `${branch}:${branch}`);
    return git(work, "rev-parse", "HEAD");
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Sends a delivery to the webhook as GitHub would, signed with the secret. */
function deliver(event: string, payload: unknown): Promise<Response> {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac("sha256", WEBHOOK_SECRET).update(body).digest("hex")}`;
  return fetch(`${server.url}/api/github/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": event, "x-github-delivery": randomUUID(), "x-hub-signature-256": signature },
    body,
  });
}

beforeAll(async () => {
  githubDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-github-"));
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", GITHUB_URL: `file://${githubDir}`, GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (githubDir) fs.rmSync(githubDir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

async function signUp(): Promise<{ page: Page; name: string }> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  const name = await signUpOn(page);
  return { page, name };
}

describe("deploying from GitHub in the dashboard", () => {
  it("sets the repository, deploys it while its build log streams, keeps a token secret, shows the webhook and previews", async () => {
    const repo = `acme-${process.pid}/hello`;
    const sha = pushApp(repo, "main", "hello from git", "Say hello\n\nThe first version.");
    const { page, name } = await signUp();
    const slug = `gh-${process.pid}`;
    const firstStep = page.getByRole("region", { name: "Create your first app" });
    await firstStep.getByLabel("Slug").fill(slug);
    await firstStep.getByLabel("Name").fill("Hello");
    await firstStep.getByRole("button", { name: "Create app" }).click();
    await page.waitForURL(`**/apps/${slug}`);
    // GitHub is on the Deploys tab.
    await page.getByRole("navigation", { name: "App sections" }).getByRole("link", { name: "Deploys" }).click();
    await page.waitForURL(`**/apps/${slug}/deploys`);

    // Nothing to deploy until a repository is saved; then the panel says what a deploy builds.
    const panel = page.getByRole("region", { name: "GitHub" });
    await panel.getByText("Save a repository above to deploy from it.").waitFor();
    await panel.getByRole("textbox", { name: /^Repository/ }).fill(`https://github.com/${repo}`);
    await panel.getByLabel("Branch", { exact: true }).fill("main");
    await panel.getByRole("button", { name: "Save repository settings" }).click();
    await panel.getByText(`Builds ${repo} at the newest commit of main`).waitFor();

    // Deploy from GitHub: the build log of that deployment streams in, and the app goes live with the commit's code.
    await panel.getByRole("button", { name: "Deploy from GitHub" }).click();
    const buildLog = page.getByRole("log", { name: "Build log" });
    await buildLog.getByText("-----> Building").waitFor({ timeout: 30_000 });
    const deployments = page.getByRole("region", { name: "Deployments" });
    const deployment = deployments.getByRole("listitem").filter({ hasText: "GitHub" });
    await deployment.getByText("Live", { exact: true }).waitFor({ timeout: 60_000 });
    const id = (await deployment.getByRole("heading").innerText()).replace("Deployment ", "");
    expect(await page.getByRole("heading", { name: "Build log" }).innerText()).toContain(id);
    await buildLog.getByText("-----> Sending traffic to the new release").waitFor();
    // The commit and its subject line, not the rest of the message.
    await deployment.getByText(sha.slice(0, 7), { exact: true }).waitFor();
    await deployment.getByText("Say hello", { exact: true }).waitFor();
    expect(await deployment.innerText()).not.toContain("The first version.");
    const tab = await page.context().newPage();
    await tab.goto(`http://${slug}.localhost:${new URL(server.url).port}/`);
    expect(await tab.innerText("body")).toBe("hello from git");
    await tab.close();

    // A token is saved, never shown: the page only says one is set. Then it is removed.
    await panel.getByText("No token is set").waitFor();
    await panel.getByLabel("Token", { exact: true }).fill("github_pat_not_shown_again");
    await panel.getByRole("button", { name: "Save token" }).click();
    await panel.getByText("A token is set.").waitFor();
    expect(await panel.getByLabel("Replace the token").inputValue()).toBe("");
    expect(await page.content()).not.toContain("github_pat_not_shown_again");
    await panel.getByRole("button", { name: "Remove token" }).click();
    await panel.getByText("No token is set").waitFor();

    // With auto-deploy on, how to set up the webhook: the payload URL to copy, JSON, the operator's secret, the events.
    await panel.getByLabel("Deploy on every push to the branch").check();
    await panel.getByLabel("Deploy pull requests as preview apps").check();
    await panel.getByRole("button", { name: "Save repository settings" }).click();
    const webhook = panel.getByRole("region", { name: "Set up the webhook" });
    await webhook.waitFor();
    expect(await webhook.getByLabel("Payload URL").inputValue()).toBe(`${server.url}/api/github/webhook`);
    expect(await webhook.innerText()).toMatch(/application\/json[\s\S]*GITHUB_WEBHOOK_SECRET[\s\S]*Pushes and Pull requests/);
    expect(await webhook.getByRole("alert").count()).toBe(0);
    await page.screenshot({ path: "/tmp/github-panel.png", fullPage: true });

    // A pull request opened on the repository: its preview app shows on the parent's page, and links back.
    const head = pushApp(repo, "feature", "hello from the pull request", "Try a feature");
    const opened = await deliver("pull_request", {
      action: "opened",
      number: 7,
      pull_request: { number: 7, head: { ref: "feature", sha: head }, base: { ref: "main" } },
      repository: { full_name: repo },
    });
    expect(opened.status).toBeLessThan(300);
    const previews = page.getByRole("region", { name: "Preview apps" });
    await expect.poll(async () => {
      await page.reload();
      await panel.waitFor();
      return previews.getByRole("link", { name: `pr-7-${slug}`, exact: true }).count();
    }, { timeout: 20_000 }).toBe(1);
    await previews.getByRole("link", { name: `pr-7-${slug}`, exact: true }).click();
    await page.waitForURL(`**/apps/pr-7-${slug}`);
    const note = page.getByText("This app is a preview of");
    await note.getByRole("link", { name: "Hello" }).click();
    await page.waitForURL(`**/apps/${slug}`);
    await page.goto(`/apps/${slug}/deploys`);

    // An account that may not write (waiting for approval) sees the panel with every write disabled.
    await server.slipway.platform.db.user.update({ where: { name }, data: { status: "PENDING" } });
    await page.reload();
    await panel.waitFor();
    for (const button of ["Save repository settings", "Deploy from GitHub", "Save token"]) {
      expect(await panel.getByRole("button", { name: button }).isDisabled(), button).toBe(true);
    }
  });
});
