// What the dashboard shows while it waits and when something fails: a progress bar during a slow navigation,
// error notices that stay until dismissed (successes go by themselves), and no notice of the previous
// session after sign-out. Needs `npm run build:web`.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { Client, uniqueName } from "../helpers/client.ts";
import { contextAs } from "../helpers/dashboard-pages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let browser: Browser;
const DESKTOP = { viewport: { width: 1280, height: 800 } };

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function upload(client: Client, name: string) {
  const form = new FormData();
  form.append("file", new Blob(["hello"], { type: "text/plain" }), name);
  expect((await client.request("POST", "/api/cdn", { body: form })).status).toBe(201);
}

describe("feedback", () => {
  it("shows a progress bar while a navigation waits on the API, and hides it once the page is there", async () => {
    const client = new Client(server.url);
    await client.signup();
    const context = await contextAs(browser, server, client, DESKTOP);
    try {
      const page = await context.newPage();
      await page.goto("/apps");
      await page.getByRole("heading", { name: "Apps", level: 1 }).waitFor();
      expect(await page.getByRole("progressbar").count()).toBe(0);
      // The OAuth apps page's query answers after 1.5 s.
      await page.route("**/graphql", async (route) => {
        if (route.request().postData()?.includes("OAuthAppsPage")) await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.continue();
      });
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "OAuth apps" }).click();
      await page.getByRole("progressbar", { name: "Loading the page" }).waitFor();
      await page.getByRole("heading", { name: "OAuth apps", level: 1 }).waitFor();
      await page.getByRole("progressbar").waitFor({ state: "detached" });
    } finally {
      await context.close();
    }
  });

  it("keeps an error notice until it is dismissed, while a success notice goes by itself", async () => {
    const client = new Client(server.url);
    await client.signup();
    await upload(client, "kept.txt");
    await upload(client, "gone.txt");
    const context = await contextAs(browser, server, client, DESKTOP);
    try {
      const page = await context.newPage();
      await page.clock.install();
      await page.goto("/cdn");
      await page.getByRole("heading", { name: "CDN", level: 1 }).waitFor();

      // The API fails the first delete.
      await page.route("**/graphql", (route) =>
        route.request().postData()?.includes("mutation") ? route.fulfill({ status: 503, body: "unavailable" }) : route.continue(),
      );
      await page.getByRole("button", { name: "Delete kept.txt" }).click();
      await page.getByRole("alertdialog", { name: "Delete kept.txt?" }).getByRole("button", { name: "Delete file" }).click();
      const failure = page.locator(".toast.error");
      await failure.waitFor();
      expect(await failure.innerText()).toMatch(/kept\.txt/);
      await page.unroute("**/graphql");

      await page.getByRole("button", { name: "Delete gone.txt" }).click();
      await page.getByRole("alertdialog", { name: "Delete gone.txt?" }).getByRole("button", { name: "Delete file" }).click();
      const success = page.locator(".toast.success").filter({ hasText: "gone.txt" });
      await success.waitFor();

      await page.clock.runFor(30_000);
      await success.waitFor({ state: "detached" });
      expect(await failure.isVisible()).toBe(true);
      await failure.getByRole("button", { name: "Dismiss" }).click();
      await failure.waitFor({ state: "detached" });
    } finally {
      await context.close();
    }
  });

  it("drops the notices of the session at sign-out", async () => {
    const name = uniqueName("toast");
    const context = await contextAs(browser, server, null, DESKTOP);
    try {
      const page = await context.newPage();
      await page.goto("/signup");
      await page.getByLabel("Email", { exact: true }).fill(`${name}@example.com`);
      await page.getByLabel("Username", { exact: true }).fill(name);
      await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.waitForURL("**/apps");
      await page.locator(".toast").filter({ hasText: "Welcome" }).waitFor();
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL("**/login");
      await page.locator(".toast").filter({ hasText: "You are signed out." }).waitFor();
      expect(await page.locator(".toast").allInnerTexts()).toEqual([expect.stringContaining("You are signed out.")]);
    } finally {
      await context.close();
    }
  });
});
