// The Runs tab's "Cron jobs" card in Chromium against the real server (serving web/build: run `npm run build:web`
// first): an app.json job listed with its schedule, command and next run, "Run now" showing its output live, then
// its last run's status and exit code on the card and its run (trigger cron) in the runs list.
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { waitFor, zipFolder } from "../helpers/apps.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  // A clock that stays put: the job runs only when asked to.
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" }, { clock: new FakeClock(Date.parse("2031-01-01T00:00:30Z")) });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

async function signUp(): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } });
  contexts.push(context);
  const page = await context.newPage();
  await signUpOn(page);
  return page;
}

async function deployedApp(page: Page, slug: string): Promise<void> {
  const headers = { origin: server.url };
  expect((await page.request.post("/api/apps", { data: { slug }, headers })).status()).toBe(201);
  const zip = await zipFolder(null, {
    "package.json": JSON.stringify({ name: "t" }),
    "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`,
    "app.json": JSON.stringify({ cron: [{ command: "echo nightly report; exit 3", schedule: "0 2 * * *" }] }),
  });
  const upload = await page.request.put(`/api/apps/${slug}/deploy`, { multipart: { file: { name: "app.zip", mimeType: "application/zip", buffer: zip } }, headers });
  expect(upload.status()).toBe(202);
  await waitFor(async () => (await (await page.request.get(`/api/apps/${slug}`)).json()).status === "RUNNING", 60_000, "the app to run");
}

describe("the Cron jobs card", () => {
  it("lists the app.json job, runs it now and shows its output, then its last run's status and exit code", async () => {
    const page = await signUp();
    const slug = `cron-ui-${process.pid}`;
    await deployedApp(page, slug);
    await page.goto(`/apps/${slug}/runs`);
    const card = page.getByRole("region", { name: "Cron jobs" });
    const job = card.getByRole("article").filter({ hasText: "echo nightly report; exit 3" });
    await job.getByText("0 2 * * *").waitFor();
    expect(await job.innerText()).toMatch(/Next run:[\s\S]*Last run:\s*never/);

    await job.getByRole("button", { name: /^Run now/ }).click();
    await page.getByRole("log", { name: "Run output" }).getByText("nightly report", { exact: true }).waitFor();
    await job.getByText("Failed", { exact: true }).waitFor();
    expect(await job.getByText("exit code 3").count()).toBe(1);
    const run = page.getByRole("region", { name: "Runs" }).getByRole("article").first();
    await run.getByText("started by cron").waitFor();
    expect(await run.getByRole("heading").innerText()).toBe("echo nightly report; exit 3");
  });
});
