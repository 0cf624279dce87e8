// A dashboard open across an upgrade of Slipway: the old build's chunks are gone, so a missing file under
// /_app/ is a plain 404 (never the page, which fails as a script), and the page notices the new version
// (SvelteKit polls _app/version.json every minute) and loads its next page in full. Needs `npm run build:web`.
import fs from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { Client } from "../helpers/client.ts";
import { contextAs } from "../helpers/dashboard-pages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

const POLL_INTERVAL_MS = 60_000;

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("a missing build file", () => {
  it.each(["/_app/immutable/chunks/nope.js", "/_app/immutable/nodes/99.AbCd1234.js", "/_app/nope.css"])("answers %s with a small plain 404, not the page", async (path) => {
    const res = await fetch(`${server.url}${path}`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.text();
    expect(body.length).toBeLessThan(100);
    expect(body).not.toContain("<");
  });

  it("still answers a client route with the page", async () => {
    const res = await fetch(`${server.url}/apps/some-app`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });
});

describe("a new version while the dashboard is open", () => {
  it("serves version.json to be revalidated on every poll", async () => {
    const res = await fetch(`${server.url}/_app/version.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.json()).toEqual({ version: expect.any(String) });
  });

  it("moves between pages in place until the version changes, then loads the next page in full", async () => {
    const client = new Client(server.url);
    await client.signup();
    const context = await contextAs(browser, server, client, { viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.clock.install();
      let served: string | null = null;
      let asked = 0;
      await page.route("**/_app/version.json", async (route) => {
        asked += 1;
        if (served === null) return route.continue();
        await route.fulfill({ status: 200, contentType: "application/json", headers: { "cache-control": "no-cache" }, body: JSON.stringify({ version: served }) });
      });
      await page.goto("/apps");
      await page.getByRole("heading", { name: "Apps", level: 1 }).waitFor();
      await markDocument(page);

      // The same version: a poll changes nothing, and the router moves within the same document.
      await page.clock.fastForward(POLL_INTERVAL_MS);
      await expect.poll(() => asked).toBe(1);
      await navigate(page, "CDN");
      expect(await isSameDocument(page)).toBe(true);

      // The server now has another build: the next poll sees it, and the next navigation is a full page load.
      served = "a-newer-build";
      await page.clock.fastForward(POLL_INTERVAL_MS);
      await expect.poll(() => asked).toBe(2);
      const documentLoad = page.waitForRequest((request) => request.resourceType() === "document" && new URL(request.url()).pathname === "/oauth-apps");
      await navigate(page, "OAuth apps");
      await documentLoad;
      expect(await isSameDocument(page)).toBe(false);
      expect(new URL(page.url()).pathname).toBe("/oauth-apps");
    } finally {
      await context.close();
    }
  });
});

async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
}

async function isSameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true);
}

async function navigate(page: Page, section: string): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: section }).click();
  await page.getByRole("heading", { name: section, level: 1 }).waitFor();
}
