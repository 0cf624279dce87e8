// The signed-in shell when things go wrong: an API that cannot be reached gets a page that says so, with a
// Retry that works once the API is back (requests to /graphql cut in the browser, and the server itself
// stopped); Back after signing out never shows a signed-in page again. Needs `npm run build:web`.
import fs from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { Client } from "../helpers/client.ts";
import { contextAs } from "../helpers/dashboard-pages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

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

async function signedIn(): Promise<{ page: Page; name: string; close: () => Promise<void> }> {
  const client = new Client(server.url);
  const { name } = await client.signup();
  const context = await contextAs(browser, server, client, { viewport: { width: 1280, height: 800 } });
  return { page: await context.newPage(), name, close: () => context.close() };
}

describe("when the API cannot be reached", () => {
  it("says so on a styled page with the brand, and Retry loads the page once the API answers again", async () => {
    const { page, close } = await signedIn();
    try {
      await page.route("**/graphql", (route) => route.abort("connectionrefused"));
      await page.goto("/apps");
      const heading = page.getByRole("heading", { name: "Slipway cannot be reached", level: 1 });
      await heading.waitFor();
      expect(await page.getByRole("link", { name: "Slipway" }).count()).toBe(1);
      expect(await page.textContent("main")).toContain("Check your connection and try again.");
      // Styled: the dashboard's stylesheet applies (a card on the page's background), not the browser's defaults.
      await expect.poll(() => page.locator(".card").evaluate((card) => getComputedStyle(card).borderRadius)).not.toBe("0px");

      await page.unroute("**/graphql");
      await page.getByRole("button", { name: "Retry" }).click();
      await page.getByRole("heading", { name: "Apps", level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe("/apps");
    } finally {
      await close();
    }
  });

  it("keeps the header when a page's own data cannot be loaded, and retries it", async () => {
    const { page, name, close } = await signedIn();
    try {
      await page.goto("/account");
      await page.getByRole("heading", { name, level: 2 }).waitFor();
      // Only the CDN page's query fails: the session query still answers.
      await page.route("**/graphql", async (route) => {
        if (route.request().postData()?.includes("CdnPage")) return route.abort("connectionrefused");
        return route.continue();
      });
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "CDN" }).click();
      await page.getByRole("heading", { name: "Slipway cannot be reached", level: 1 }).waitFor();
      expect(await page.getByRole("navigation", { name: "Main" }).isVisible()).toBe(true);
      await page.unroute("**/graphql");
      await page.getByRole("button", { name: "Retry" }).click();
      await page.getByRole("heading", { name: "CDN", level: 1 }).waitFor();
    } finally {
      await close();
    }
  });
});

describe("Back after signing out", () => {
  it("shows the sign-in page, never the signed-in pages seen before", async () => {
    const { page, name, close } = await signedIn();
    try {
      await page.goto("/apps");
      await page.getByRole("heading", { name: "Apps", level: 1 }).waitFor();
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "CDN" }).click();
      await page.getByRole("heading", { name: "CDN", level: 1 }).waitFor();
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
      await page.getByRole("heading", { name, level: 2 }).waitFor();
      await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL((url) => url.pathname === "/login");
      await page.getByText("You are signed out.").waitFor();

      // The account page's entry became the sign-in page; the two before it are dashboard pages.
      for (const left of ["/cdn", "/apps"]) {
        await page.goBack();
        await page.waitForURL((url) => url.pathname === "/login" && url.searchParams.get("next") === left);
        await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
        expect(await page.getByText(name).count()).toBe(0);
        expect(await page.getByRole("navigation", { name: "Main" }).count()).toBe(0);
      }
    } finally {
      await close();
    }
  });

  it("does not keep the signed-in page in the browser's caches (no-store)", async () => {
    const res = await fetch(`${server.url}/account`);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});
