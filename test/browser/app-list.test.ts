// The apps page in Chromium (serving web/build: run `npm run build:web` first): a refused slug says what is wrong
// and offers the valid slug closest to it in one click; the list shows each app's state in words and links its
// address only while it is live. States are set in the database: no app runs here.
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { Client } from "../helpers/client.ts";
import { contextAs } from "../helpers/dashboard-pages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

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

async function signedIn(): Promise<{ page: Page; client: Client }> {
  const client = new Client(server.url);
  await client.signup();
  const context = await contextAs(browser, server, client, { viewport: { width: 1280, height: 800 } });
  contexts.push(context);
  return { page: await context.newPage(), client };
}

describe("creating an app with a slug that breaks the rule", () => {
  it("says what is wrong, and Use <slug> puts the suggested slug in the field, which then creates the app", async () => {
    const { page } = await signedIn();
    await page.goto("/apps");
    const form = page.getByRole("region", { name: "Create your first app" });
    const typed = `Hello Node ${process.pid}`;
    const suggested = `hello-node-${process.pid}`;
    await form.getByLabel("Slug").fill(typed);
    await form.getByRole("button", { name: "Create app" }).click();

    const error = page.locator("#app-slug-error");
    await error.getByText(`"${typed}" has capital letters and spaces. Try "${suggested}".`).waitFor();
    // The hint still states the rule; the error does not repeat it.
    expect(await error.innerText()).not.toContain("3 to 40");
    await form.getByRole("button", { name: `Use ${suggested}` }).click();
    expect(await form.getByLabel("Slug").inputValue()).toBe(suggested);
    expect(await error.count()).toBe(0);
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("app-slug");

    await form.getByRole("button", { name: "Create app" }).click();
    await page.waitForURL(`**/apps/${suggested}`);
  });

  it("offers no suggestion when none can be made", async () => {
    const { page } = await signedIn();
    await page.goto("/apps");
    const form = page.getByRole("region", { name: "Create your first app" });
    await form.getByLabel("Slug").fill("ab");
    await form.getByRole("button", { name: "Create app" }).click();
    await page.locator("#app-slug-error").getByText('"ab" is shorter than 3 characters.').waitFor();
    expect(await form.getByRole("button", { name: /^Use / }).count()).toBe(0);
  });
});

describe("the app list", () => {
  const STATES = [
    ["CREATED", "Not deployed"],
    ["DEPLOYING", "Deploying…"],
    ["RUNNING", "Live"],
    ["FAILED", "Deploy failed"],
    ["CRASHED", "Crashed"],
    ["STOPPED", "Stopped"],
  ] as const;

  it("shows each app's state in words, and links the address of a live app only, to open in a new tab", async () => {
    const { page, client } = await signedIn();
    const { db } = server.slipway.platform;
    await db.quota.updateMany({ data: { maxApps: 10 } });
    const urls = new Map<string, string>();
    for (const [status] of STATES) {
      const slug = `state-${status.toLowerCase()}-${process.pid}`;
      const created = await client.post("/api/apps", { slug });
      expect(created.status).toBe(201);
      urls.set(slug, created.body.url);
      await db.app.update({ where: { slug }, data: { status } });
    }
    await page.goto("/apps");
    for (const [status, words] of STATES) {
      const slug = `state-${status.toLowerCase()}-${process.pid}`;
      const card = page.getByRole("article", { name: slug });
      await card.getByText(words, { exact: true }).waitFor();
      const address = card.getByRole("link", { name: urls.get(slug) });
      if (status !== "RUNNING") {
        expect(await address.count(), status).toBe(0);
        expect(await card.getByText(urls.get(slug)!, { exact: true }).isVisible()).toBe(true);
        continue;
      }
      expect(await address.getAttribute("href")).toBe(urls.get(slug));
      expect(await address.getAttribute("target")).toBe("_blank");
      expect(await address.getAttribute("rel")).toContain("noopener");
    }
  });
});
