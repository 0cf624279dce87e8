// A sleeping app's page in Chromium against the real server (serving web/build: run `npm run build:web` first): once
// the app sleeps (the sleep timer on a clock the test moves) the header says "Sleeping" and why, live, without a
// reload; a request to the app wakes it and the header says "Live" again; the runtime log shows both.
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { requestApp, waitFor, zipFolder } from "../helpers/apps.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { idleMinutes } from "../helpers/sleep.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

const clock = new FakeClock(Date.parse("2031-01-01T00:00:00Z"));
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

describe("a sleeping app's page", () => {
  it("says Sleeping and why, live, and Live again once a request woke it", async () => {
    const page = await signUp();
    const slug = `sleep-ui-${process.pid}`;
    const headers = { origin: server.url };
    expect((await page.request.post("/api/apps", { data: { slug }, headers })).status()).toBe(201);
    const zip = await zipFolder(null, { "package.json": JSON.stringify({ name: "t" }), "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);` });
    expect((await page.request.put(`/api/apps/${slug}/deploy`, { multipart: { file: { name: "app.zip", mimeType: "application/zip", buffer: zip } }, headers })).status()).toBe(202);
    await waitFor(async () => (await (await page.request.get(`/api/apps/${slug}`)).json()).status === "RUNNING", 60_000, "the app to run");
    expect((await page.request.patch(`/api/apps/${slug}`, { data: { sleepAfterMinutes: 5 }, headers })).status()).toBe(200);

    await page.goto(`/apps/${slug}`);
    const header = page.getByRole("region", { name: slug });
    await header.getByText("Live", { exact: true }).waitFor();

    const { sleeps } = server.slipway.platform;
    await idleMinutes(clock, sleeps, 5);
    await header.getByText("Sleeping", { exact: true }).first().waitFor();
    await header.getByText("Sleeping: no request came for 5 minutes, so no instance runs.", { exact: false }).waitFor();
    await page.screenshot({ path: "test-results/app-page/sleeping-phone.png" });

    expect((await requestApp(server.url, `${slug}.localhost`)).body).toBe("ok");
    await header.getByText("Live", { exact: true }).waitFor();
    await page.getByRole("navigation", { name: "App sections" }).getByRole("link", { name: "Logs" }).click();
    await page.getByText("Waking: a request arrived.").waitFor();
    await page.getByText(/^Sleeping: no request for 5 minutes/).first().waitFor();
  });
});
