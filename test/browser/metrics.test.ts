// An app's Metrics tab in Chromium at phone width against the real server (serving web/build: run `npm run
// build:web` first): after some traffic and two minutes recorded (rounds on a clock the test moves), the four charts
// draw (a uPlot canvas each) with data, the requests chart says how many came, and the day and week ranges load.
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { requestApp, waitFor, zipFolder } from "../helpers/apps.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { metricsRoundAt } from "../helpers/metrics.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

const START = Date.parse("2031-01-01T00:00:00Z");
const clock = new FakeClock(START);
let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" }, { clock });
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
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 390, height: 844 } });
  contexts.push(context);
  const page = await context.newPage();
  await signUpOn(page);
  return page;
}

describe("an app's Metrics tab", () => {
  it("draws CPU, memory, requests and latency charts with data, at phone width", async () => {
    const page = await signUp();
    const slug = `metrics-ui-${process.pid}`;
    const headers = { origin: server.url };
    expect((await page.request.post("/api/apps", { data: { slug }, headers })).status()).toBe(201);
    const zip = await zipFolder(null, { "package.json": JSON.stringify({ name: "t" }), "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);` });
    expect((await page.request.put(`/api/apps/${slug}/deploy`, { multipart: { file: { name: "app.zip", mimeType: "application/zip", buffer: zip } }, headers })).status()).toBe(202);
    await waitFor(async () => (await (await page.request.get(`/api/apps/${slug}`)).json()).status === "RUNNING", 60_000, "the app to run");

    const recorder = server.slipway.platform.appMetrics;
    await metricsRoundAt(clock, recorder, START + 60_000);
    for (let i = 0; i < 12; i++) expect((await requestApp(server.url, `${slug}.localhost`)).status).toBe(200);
    await metricsRoundAt(clock, recorder, START + 120_000);
    await metricsRoundAt(clock, recorder, START + 180_000);

    await page.goto(`/apps/${slug}`);
    await page.getByRole("navigation", { name: "App sections" }).getByRole("link", { name: "Metrics" }).click();
    for (const name of ["CPU", "Memory", "Requests", "Latency"]) {
      const chart = page.getByRole("figure", { name: new RegExp(`^${name}`) });
      await chart.locator("canvas").waitFor();
      expect(await chart.getAttribute("data-measured")).toBe("true");
      const box = await chart.boundingBox();
      expect(box!.width).toBeLessThanOrEqual(390);
      expect(box!.width).toBeGreaterThan(250);
    }
    // The latest minute recorded (the third) saw no request.
    await page.getByRole("figure", { name: /^Requests/ }).getByText("Requests per a minute: 0").waitFor();
    await page.getByRole("figure", { name: /^Memory/ }).getByText(/Limit: 512 MiB/).waitFor();
    await page.screenshot({ path: "test-results/app-page/metrics-phone.png", fullPage: true });

    await page.getByRole("link", { name: "Last week" }).click();
    await page.getByText("One point per 30 min").waitFor();
    await page.getByRole("figure", { name: /^Requests/ }).getByText("Requests per 30 min: 12").waitFor();
  }, 120_000);
});
