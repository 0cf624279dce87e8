// An app's page in Chromium against the real server (serving web/build: run `npm run build:web` first): its tabs,
// each with its own address; the deploy box first until the first deploy; the header's state through deploying,
// live, failed, crashed and stopped; a failed start's last output on the deploy card, in view without scrolling,
// with a toast that links to it and a link to the runtime log of that moment; a health-check path from app.json
// honoured and its requests absent from the runtime log, then changed in Settings; and at a phone's width, the
// tabs scrolling on their own and a toast taking its own place above the forms. The apps run as real processes.
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { requestApp, zipFolder } from "../helpers/apps.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

async function signUp(viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, viewport });
  contexts.push(context);
  const page = await context.newPage();
  await signUpOn(page);
  return page;
}

async function createApp(page: Page, slug: string): Promise<void> {
  const created = await page.request.post("/api/apps", { data: { slug }, headers: { origin: server.url } });
  expect(created.status()).toBe(201);
}

/** Deploys through the Deploy box on the page (a chosen file). */
async function chooseZip(page: Page, name: string, zip: Buffer): Promise<void> {
  await page.locator("#deploy-file").setInputFiles({ name, mimeType: "application/zip", buffer: zip });
}

/**
 * A Node app that logs every request it gets, answers /healthz, and exits on /crash. `startDelayMs` holds its
 * listen back (a deploy that stays STARTING for a while); `healthcheck` goes into its app.json.
 */
function greeter(version: string, options: { startDelayMs?: number; healthcheck?: object } = {}): Promise<Buffer> {
  const source = [
    `const http = require("http");`,
    `const server = http.createServer((q, s) => {`,
    `  console.log("request " + q.method + " " + q.url + " ua=" + q.headers["user-agent"]);`,
    `  if (q.url === "/crash") process.exit(3);`,
    `  if (q.url === "/") { s.statusCode = 500; return s.end("the front page is broken"); }`,
    `  s.end("${version} ok");`,
    `});`,
    `setTimeout(() => server.listen(process.env.PORT), ${options.startDelayMs ?? 0});`,
  ].join("\n");
  const appJson: Record<string, string> = options.healthcheck ? { "app.json": JSON.stringify({ healthcheck: options.healthcheck }) } : {};
  return zipFolder(null, { "package.json": JSON.stringify({ name: "greeter" }), "server.js": source, ...appJson });
}

/** A Node app that writes 30 numbered lines, then a module error, and exits before it listens. */
function broken(): Promise<Buffer> {
  const source = [
    `for (let i = 1; i <= 30; i++) console.log("boot line " + i);`,
    `console.error("Error: Cannot find module 'express'");`,
    `process.exit(1);`,
  ].join("\n");
  return zipFolder(null, { "package.json": JSON.stringify({ name: "broken" }), "server.js": source });
}

const inViewport = (page: Page, selector: ReturnType<Page["locator"]>) =>
  selector.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const nav = element.closest("nav")?.getBoundingClientRect() ?? { left: 0, right: window.innerWidth };
    // A pixel of slack: a list scrolled to its end stops at a whole pixel, the last tab's edge may not.
    return box.top >= 0 && box.bottom <= window.innerHeight && box.left >= nav.left - 1 && box.right <= nav.right + 1 && box.height > 0;
  });

describe("an app's page", () => {
  it("has a tab per section, each at its own address, with the deploy box first until the first deploy", async () => {
    const page = await signUp();
    const slug = `tabs-${process.pid}`;
    await createApp(page, slug);
    await page.goto(`/apps/${slug}`);
    const tabs = page.getByRole("navigation", { name: "App sections" });
    await tabs.getByRole("link", { name: "Overview" }).waitFor();
    expect(await tabs.getByRole("link").allInnerTexts()).toEqual(["Overview", "Deploys", "Logs", "Metrics", "Runs", "Environment", "Resources", "Domains", "Settings"]);
    expect(await tabs.getByRole("link", { name: "Overview" }).getAttribute("aria-current")).toBe("page");

    // Never deployed: the header says so, the address is not a link yet, and the deploy box comes first.
    const header = page.getByRole("region", { name: slug });
    await header.getByText("Not deployed", { exact: true }).waitFor();
    expect(await header.getByRole("link").count()).toBe(0);
    const firstCard = page.locator("main .app-page > section.card").nth(1);
    expect(await firstCard.getAttribute("aria-labelledby")).toBe("deploy-title");
    expect(await inViewport(page, page.getByRole("button", { name: "Choose a zip file" }))).toBe(true);

    // Each tab at its own address, its title naming it; Back returns to the previous tab.
    for (const [label, path, region] of [
      ["Deploys", "/deploys", "Deployments"],
      ["Logs", "/logs", "Runtime log"],
      ["Runs", "/runs", "Runs"],
      ["Environment", "/environment", "Environment variables"],
      ["Resources", "/resources", "Databases"],
      ["Domains", "/domains", "Custom domains"],
      ["Settings", "/settings", "Health check"],
    ] as const) {
      await tabs.getByRole("link", { name: label }).click();
      await page.waitForURL(`**/apps/${slug}${path}`);
      await page.getByRole("region", { name: region }).first().waitFor();
      expect(await tabs.getByRole("link", { name: label }).getAttribute("aria-current")).toBe("page");
      expect(await page.title()).toBe(`${label} · ${slug} · Apps · Slipway`);
    }
    await page.goBack();
    await page.waitForURL(`**/apps/${slug}/domains`);
    // Opened directly, a tab loads on its own.
    await page.goto(`/apps/${slug}/environment`);
    await page.getByRole("region", { name: "Environment variables" }).waitFor();
    // Isolation and deleting moved to Settings.
    await page.goto(`/apps/${slug}/settings`);
    await page.getByRole("button", { name: "Delete app…" }).waitFor();
    await page.getByRole("region", { name: "Isolation" }).getByText(/Runtime driver/).waitFor();
  });

  it("tells the state in the header through deploying, live, failed (with the app's last output), crashed and stopped", async () => {
    const page = await signUp();
    const slug = `states-${process.pid}`;
    await createApp(page, slug);
    await page.goto(`/apps/${slug}`);
    const header = page.getByRole("region", { name: slug });

    // Deploying: the first deploy's card and build log show on the Overview while it starts.
    await chooseZip(page, "v1.zip", await greeter("v1", { startDelayMs: 1500, healthcheck: { path: "/healthz", intervalSeconds: 1, timeoutSeconds: 1 } }));
    await header.getByText("The first deploy is under way.").waitFor();
    await page.getByRole("region", { name: "Deploy under way" }).getByRole("log", { name: "Build log" }).getByText("-----> Building").waitFor();
    // Live: one toast, the outcome, with a link to the app; no stale "starting" notice beside it.
    await header.getByText("Live", { exact: true }).waitFor({ timeout: 30_000 });
    const toasts = page.getByRole("status").filter({ has: page.locator(".toast") });
    await toasts.getByText(/of .* is live\./).waitFor();
    expect(await page.locator(".toast").count()).toBe(1);
    expect(await page.locator(".toast").getByRole("link", { name: "Open the app" }).getAttribute("href")).toBe(`http://${slug}.localhost:${new URL(server.url).port}/`);
    expect(await header.getByRole("link").first().getAttribute("href")).toBe(`http://${slug}.localhost:${new URL(server.url).port}/`);
    await page.getByRole("region", { name: "Live deploy" }).waitFor();

    // The health check from app.json is the one in force, and its requests never reach the runtime log.
    await page.getByRole("navigation", { name: "App sections" }).getByRole("link", { name: "Settings" }).click();
    await page.getByText("Now: GET /healthz (a 2xx or 3xx status passes) every 1 s, waiting up to 1 s, from the app.json of the live release.").waitFor();
    const visit = (path: string) => requestApp(server.url, `${slug}.localhost`, path);
    expect((await visit("/hello")).status).toBe(200);
    await page.getByRole("navigation", { name: "App sections" }).getByRole("link", { name: "Logs" }).click();
    const runtimeLog = page.getByRole("log", { name: "Runtime log" });
    await runtimeLog.getByText("request GET /hello").waitFor();
    // Checked every second since the start: a few dozen checks by now, none in the log.
    await expect.poll(() => runtimeLog.innerText()).not.toMatch(/healthz|slipway-health-check/);

    // Failed: a start that exits before it listens keeps its last 20 lines on the deploy card, in view.
    await page.getByRole("navigation", { name: "App sections" }).getByRole("link", { name: "Overview" }).click();
    await page.waitForURL(`**/apps/${slug}`);
    await page.request.put(`/api/apps/${slug}/deploy`, { multipart: { file: { name: "broken.zip", mimeType: "application/zip", buffer: await broken() } }, headers: { origin: server.url } });
    const failedCard = page.getByRole("region", { name: "Failed deploy" });
    const output = failedCard.locator("figure pre");
    await output.waitFor({ timeout: 30_000 });
    const lines = (await output.innerText()).split("\n");
    expect(lines).toHaveLength(20);
    expect(lines[0]).toBe("boot line 12");
    expect(lines[19]).toBe("Error: Cannot find module 'express'");
    expect(await inViewport(page, failedCard.locator("figcaption"))).toBe(true);
    await header.getByText(/The latest deploy failed: [\s\S]*The previous release still serves\./).waitFor();
    // The toast names the failure and links to its card.
    const failureToast = page.locator(".toast.error");
    await failureToast.getByText(/failed: /).waitFor();
    expect(await failureToast.getByRole("link", { name: "See why" }).getAttribute("href")).toMatch(new RegExp(`^/apps/${slug}/deploys#deployment-`));
    await page.screenshot({ path: "test-results/app-page/failed-start-desktop.png" });
    // The link to the runtime log marks the moment that deploy began.
    await failedCard.getByRole("link", { name: "Runtime log from that deploy on" }).click();
    await page.waitForURL(/\/logs\?at=/);
    await page.locator(".line.marked").waitFor();
    expect(await page.locator(".line.marked").innerText()).toMatch(/boot line 1$/m);

    // Crashed: the process exits; the header says so and links to the runtime log.
    await page.getByRole("navigation", { name: "App sections" }).getByRole("link", { name: "Overview" }).click();
    await visit("/crash").catch(() => null);
    await header.getByText("Crashed", { exact: true }).first().waitFor({ timeout: 20_000 });
    await header.getByRole("alert").getByRole("link", { name: "its runtime log" }).waitFor();
    await header.getByText("Live", { exact: true }).waitFor({ timeout: 30_000 });

    // Stopped: the address is no longer a link, and says when it answers again.
    await header.getByRole("button", { name: "Stop" }).click();
    await header.getByText("Stopped", { exact: true }).first().waitFor();
    await header.getByText("answers again once you restart the app.").waitFor();
    await header.getByRole("button", { name: "Restart" }).click();
    await header.getByText("Live", { exact: true }).waitFor({ timeout: 30_000 });
  });

  it("sets the app's own health check in Settings, refusing a bad one with a reason beside the field", async () => {
    const page = await signUp();
    const slug = `health-${process.pid}`;
    await createApp(page, slug);
    await page.goto(`/apps/${slug}/settings`);
    const card = page.getByRole("region", { name: "Health check" });
    await card.getByText("Now: a TCP connect to PORT every 5 s, waiting up to 2 s, from Slipway's default.").waitFor();

    await card.getByLabel("Path (optional)").fill("healthz");
    await card.getByRole("button", { name: "Save health check" }).click();
    await card.getByRole("alert").or(card.locator(".error")).first().waitFor();
    await card.locator("#health-path-error").getByText('Give a path that starts with "/"', { exact: false }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("health-path");

    await card.getByLabel("Path (optional)").fill("/up");
    await card.getByLabel("Every (seconds)").fill("10");
    await card.getByRole("button", { name: "Save health check" }).click();
    await card.getByText("Now: GET /up (a 2xx or 3xx status passes) every 10 s, waiting up to 2 s, from this app's setting.").waitFor();
    const app = await page.request.get(`/api/apps/${slug}`);
    expect((await app.json()).healthcheck).toMatchObject({ path: "/up", intervalSeconds: 10, timeoutSeconds: 2 });

    await card.getByRole("button", { name: "Use app.json's or the default" }).click();
    await card.getByText("Now: a TCP connect to PORT every 5 s, waiting up to 2 s, from Slipway's default.").waitFor();
  });

  it("sets sleep when idle in Settings at a phone's width, refusing minutes out of range beside the field", async () => {
    const page = await signUp(PHONE);
    const slug = `sleep-${process.pid}`;
    await createApp(page, slug);
    await page.goto(`/apps/${slug}/settings`);
    const card = page.getByRole("region", { name: "Sleep when idle" });
    await card.getByText("Never sleeps: its processes run all the time.").waitFor();

    await card.getByLabel("Sleep when idle").check();
    await card.getByLabel("After (minutes without a request)").fill("0");
    await card.getByRole("button", { name: "Save sleep setting" }).click();
    await card.locator("#sleep-minutes-error").getByText("Use a whole number of minutes from 1 to 10080", { exact: false }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("sleep-minutes");

    await card.getByLabel("After (minutes without a request)").fill("15");
    await card.getByLabel("Its other process types (workers) sleep too").check();
    await card.getByRole("button", { name: "Save sleep setting" }).click();
    await card.getByText("Sleeps after 15 minutes without a request, with its other process types.").waitFor();
    expect(await (await page.request.get(`/api/apps/${slug}`)).json()).toMatchObject({ sleepAfterMinutes: 15, sleepWorkers: true });
    // Nothing sticks out of a phone's width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.screenshot({ path: "test-results/app-page/sleep-settings-phone.png", fullPage: true });

    await card.getByLabel("Sleep when idle").uncheck();
    await card.getByRole("button", { name: "Save sleep setting" }).click();
    await card.getByText("Never sleeps: its processes run all the time.").waitFor();
  });

  it("fits a phone: the tabs scroll on their own, and a toast takes its own place instead of covering a form", async () => {
    const page = await signUp(PHONE);
    const slug = `phone-tabs-${process.pid}`;
    await createApp(page, slug);
    await page.goto(`/apps/${slug}/environment`);
    const env = page.getByRole("region", { name: "Environment variables" });
    await env.getByLabel("Name").fill("GREETING_WITH_A_LONG_NAME");
    await env.getByLabel("Value").fill("x".repeat(80));
    await env.getByRole("button", { name: "Add variable" }).click();
    const toast = page.locator(".toast");
    await toast.waitFor();
    // The masked value stays on one line beside its name; the buttons go below.
    const row = env.getByRole("listitem").filter({ hasText: "GREETING_WITH_A_LONG_NAME" });
    const dots = row.getByLabel("hidden value");
    expect((await dots.boundingBox())!.height).toBeLessThan(30);
    // An empty value is refused in the form, with the way to set one on purpose.
    await env.getByLabel("Name").fill("BLANK");
    await env.getByRole("button", { name: "Add variable" }).click();
    await env.getByText("Give BLANK a value. To set an empty one on purpose, paste the line BLANK= instead.").waitFor();

    const overlaps = await page.evaluate(() => {
      const notice = document.querySelector(".toast")!.getBoundingClientRect();
      return [...document.querySelectorAll("form")].some((form) => {
        const box = form.getBoundingClientRect();
        return box.left < notice.right && notice.left < box.right && box.top < notice.bottom && notice.top < box.bottom;
      });
    });
    expect(overlaps).toBe(false);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    const tabs = page.getByRole("navigation", { name: "App sections" });
    expect(await tabs.evaluate((nav) => nav.scrollWidth > nav.clientWidth)).toBe(true);
    await page.screenshot({ path: "test-results/app-page/environment-phone.png", fullPage: true });
    // The tab in use is scrolled into view.
    await page.goto(`/apps/${slug}/settings`);
    expect(await inViewport(page, tabs.getByRole("link", { name: "Settings" }))).toBe(true);
  });
});
