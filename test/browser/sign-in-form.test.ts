// The sign-in and sign-up forms: the email field has the focus on arrival, a password can be shown, the
// handle is asked for as "Username", and a rule is said once (as the error, not also as the hint).
// Needs `npm run build:web`.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { contextAs } from "../helpers/dashboard-pages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("sign-in and sign-up forms", () => {
  it("focus the email field on arrival and show the password on request", async () => {
    const context = await contextAs(browser, server, null, { viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      for (const path of ["/login", "/signup"]) {
        await page.goto(path);
        await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("email");
        const password = page.getByLabel("Password", { exact: true });
        await password.fill("a secret phrase");
        const show = page.getByRole("button", { name: "Show password" });
        expect(await show.getAttribute("aria-pressed")).toBe("false");
        expect(await password.getAttribute("type")).toBe("password");
        await show.click();
        expect(await show.getAttribute("aria-pressed")).toBe("true");
        expect(await password.getAttribute("type")).toBe("text");
        expect(await password.inputValue()).toBe("a secret phrase");
        await show.click();
        expect(await password.getAttribute("type")).toBe("password");
      }
    } finally {
      await context.close();
    }
  });

  it("asks for a Username, and says its rule once when it is broken", async () => {
    const context = await contextAs(browser, server, null, { viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto("/signup");
      const username = page.getByLabel("Username", { exact: true });
      expect(await page.locator("#name-hint").innerText()).toMatch(/39 lowercase letters/);
      await page.getByLabel("Email", { exact: true }).fill("rules@example.com");
      await username.fill("Not A Handle!");
      await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.locator("#name-error").waitFor();
      expect(await username.getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#name-hint").count()).toBe(0);
      expect(await username.getAttribute("aria-describedby")).toBe("name-error");
    } finally {
      await context.close();
    }
  });
});
