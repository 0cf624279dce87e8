// Every page at a phone's width (360×740): nothing wider than the screen, and the header's sections behind
// a menu button (a disclosure: aria-expanded, focus into the menu, Escape closes it and returns focus).
// Screenshots of each page go to test-results/. Needs `npm run build:web`.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { clientFor, contextAs, openDashboardPage, seedDashboard, type Seeded } from "../helpers/dashboard-pages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const PHONE = { width: 360, height: 740 };

let server: TestServer;
let browser: Browser;
let seed: Seeded;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  browser = await launchChromium();
  seed = await seedDashboard(server);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("at 360 px wide", () => {
  it("no page scrolls sideways", async () => {
    const overflowing: string[] = [];
    for (const target of seed.pages) {
      const context = await contextAs(browser, server, clientFor(seed, target), { viewport: PHONE });
      try {
        const page = await context.newPage();
        await openDashboardPage(page, target);
        await page.waitForLoadState("networkidle");
        const { scrollWidth, innerWidth, widest } = await page.evaluate(() => {
          // What sticks out, to say which element to fix.
          const wide = [...document.querySelectorAll("body *")]
            .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
            .filter((element) => ![...element.children].some((child) => child.getBoundingClientRect().right > window.innerWidth + 0.5))
            .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}`);
          return { scrollWidth: document.scrollingElement!.scrollWidth, innerWidth: window.innerWidth, widest: wide.slice(0, 8) };
        });
        await page.screenshot({ path: `test-results/phone/${target.name}.png`, fullPage: true });
        if (scrollWidth > innerWidth) overflowing.push(`${target.path}: ${scrollWidth} > ${innerWidth} (${widest.join(", ")})`);
      } finally {
        await context.close();
      }
    }
    expect(overflowing).toEqual([]);
  });

  it("puts the sections behind a menu button that opens, moves focus in, and closes on Escape and on navigating", async () => {
    const context = await contextAs(browser, server, seed.user, { viewport: PHONE });
    try {
      const page = await context.newPage();
      await openDashboardPage(page, seed.pages.find((p) => p.name === "apps")!);
      const menu = page.getByRole("button", { name: "Menu" });
      const nav = page.getByRole("navigation", { name: "Main" });
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await nav.getByRole("link", { name: "Account" }).isVisible()).toBe(false);
      // The header is one row: the brand and the button.
      expect((await page.locator("header").boundingBox())!.height).toBeLessThan(80);

      await menu.click();
      expect(await menu.getAttribute("aria-expanded")).toBe("true");
      await nav.getByRole("link", { name: "Account" }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Apps");
      await page.keyboard.press("Escape");
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await nav.getByRole("link", { name: "Account" }).isVisible()).toBe(false);
      expect(await menu.evaluate((element) => element === document.activeElement)).toBe(true);

      // Opened with the keyboard, a section is followed and the menu closes behind it.
      await page.keyboard.press("Enter");
      expect(await menu.getAttribute("aria-expanded")).toBe("true");
      await nav.getByRole("link", { name: "OAuth apps" }).click();
      await page.waitForURL("**/oauth-apps");
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      // Sign out is in the menu too.
      await menu.click();
      expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("shows the sections in the header without a menu button on a desktop", async () => {
    const context = await contextAs(browser, server, seed.user, { viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await openDashboardPage(page, seed.pages.find((p) => p.name === "apps")!);
      expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Menu" }).isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });
});
