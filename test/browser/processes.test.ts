// The Processes panel of an app's Overview in Chromium against the real server (serving web/build: run
// `npm run build:web` first): a Node app with web and worker (its Procfile) shows one block per type, web first,
// each with its command and instances; worker scaled to 2 and then to 0 from the panel, live; a quantity past the
// quota refused beside the worker's control; and the runtime log naming the worker's lines worker.1. The apps run
// as real sandboxed processes.
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { waitFor, zipFolder } from "../helpers/apps.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  // Three instances over every type: web and two workers fit, five workers do not.
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", DEFAULT_MAX_INSTANCES: "3" });
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

/** Creates the app and deploys a Node app with a web and a worker process over the API (with the page's session), until it is live. */
async function deployedApp(page: Page, slug: string): Promise<void> {
  const headers = { origin: server.url };
  expect((await page.request.post("/api/apps", { data: { slug }, headers })).status()).toBe(201);
  const zip = await zipFolder(null, {
    "package.json": JSON.stringify({ name: "t" }),
    Procfile: "web: node server.js\nworker: node worker.js\n",
    "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`,
    "worker.js": `console.log("worker up"); setInterval(() => {}, 1000);`,
  });
  const upload = await page.request.put(`/api/apps/${slug}/deploy`, { multipart: { file: { name: "app.zip", mimeType: "application/zip", buffer: zip } }, headers });
  expect(upload.status()).toBe(202);
  await waitFor(async () => (await (await page.request.get(`/api/apps/${slug}`)).json()).status === "RUNNING", 60_000, "the app to run");
}

describe("the Processes panel", () => {
  it("shows web and worker with their instances, scales the worker to 2 and to 0, and says why past the quota", async () => {
    const page = await signUp();
    const slug = `procs-ui-${process.pid}`;
    await deployedApp(page, slug);
    await page.goto(`/apps/${slug}`);

    const panel = page.getByRole("region", { name: "Processes" });
    const web = panel.getByRole("article", { name: "web" });
    const worker = panel.getByRole("article", { name: "worker" });
    const instance = (name: string) => worker.getByRole("row").filter({ has: page.getByRole("cell", { name, exact: true }) });
    await instance("worker.1").getByText("Running", { exact: true }).waitFor({ timeout: 30_000 });
    expect(await panel.getByRole("heading", { level: 3 }).allInnerTexts()).toEqual(["web", "worker"]);
    await web.getByText("node server.js", { exact: true }).waitFor();
    await worker.getByText("node worker.js", { exact: true }).waitFor();
    await web.getByRole("cell", { name: "web.1", exact: true }).waitFor();
    expect(await instance("worker.1").getByRole("cell").nth(3).innerText()).toBe("0");

    const quantity = worker.getByRole("spinbutton", { name: "worker instances" });
    const scale = worker.getByRole("button", { name: "Scale worker" });
    expect(await quantity.inputValue()).toBe("1");
    expect(await scale.isDisabled()).toBe(true);
    await quantity.fill("2");
    await scale.click();
    await instance("worker.2").getByText("Running", { exact: true }).waitFor({ timeout: 30_000 });
    await instance("worker.1").waitFor();
    await page.screenshot({ path: "test-results/processes/overview.png", fullPage: true });

    await quantity.fill("0");
    await scale.click();
    await worker.getByText("Scaled to 0: not running.").waitFor({ timeout: 30_000 });
    expect(await worker.getByRole("row").count()).toBe(0);
    // Web runs on, untouched.
    await web.getByRole("cell", { name: "web.1", exact: true }).waitFor();

    // Web and five workers are six instances, past the three allowed: the message shows beside the worker's control.
    await quantity.fill("5");
    await scale.click();
    await worker.getByRole("alert").getByText(/past your maxInstances of 3/).waitFor();
    expect(await web.getByRole("alert").count()).toBe(0);
    expect(await quantity.getAttribute("aria-invalid")).toBe("true");
    expect(await worker.getByText("Scaled to 0: not running.").count()).toBe(1);
    await panel.screenshot({ path: "test-results/processes/quota.png" });

    // The worker's output in the runtime log, named as the instance that wrote it.
    await page.getByRole("navigation", { name: "App sections" }).getByRole("link", { name: "Logs" }).click();
    const line = page.getByRole("log", { name: "Runtime log" }).locator(".line").filter({ hasText: "worker up" }).first();
    await line.waitFor();
    expect(await line.locator(".source").innerText()).toBe("worker.1");
  });

  it("keeps an app with one web instance compact", async () => {
    const page = await signUp();
    const slug = `procs-one-${process.pid}`;
    const headers = { origin: server.url };
    expect((await page.request.post("/api/apps", { data: { slug }, headers })).status()).toBe(201);
    const zip = await zipFolder(null, { "package.json": JSON.stringify({ name: "t" }), "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);` });
    expect((await page.request.put(`/api/apps/${slug}/deploy`, { multipart: { file: { name: "app.zip", mimeType: "application/zip", buffer: zip } }, headers })).status()).toBe(202);
    await waitFor(async () => (await (await page.request.get(`/api/apps/${slug}`)).json()).status === "RUNNING", 60_000, "the app to run");
    await page.goto(`/apps/${slug}`);

    const web = page.getByRole("region", { name: "Processes" }).getByRole("article", { name: "web" });
    await web.getByText("Healthy", { exact: true }).waitFor({ timeout: 30_000 });
    // One line, not a table.
    expect(await web.getByRole("table").count()).toBe(0);
    expect(await web.getByText("web.1", { exact: true }).count()).toBe(1);
    expect(await web.getByRole("spinbutton", { name: "web instances" }).inputValue()).toBe("1");
  });
});
