// CDN file names on a phone (360 px): a short name keeps together ("red.png", never "red.pn" / "g"), a long one
// wraps after its separators (or, in a long run without any, every 16 characters), and nothing scrolls sideways.
// Serves web/build: run `npm run build:web` first.
import fs from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { Client } from "../helpers/client.ts";
import { contextAs } from "../helpers/dashboard-pages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { uploadFile } from "../cdn/helpers.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

const PHONE = { width: 360, height: 740 };
const CHUNK = 16;
const NAMES = ["red.png", "a-file-with-a-long-name-for-the-table.txt", "IMG_20240101_123456789_holiday_photo.jpeg", `${"x".repeat(60)}.txt`];

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

/** Where the name may break: after a separator, or a multiple of 16 characters into a run without one. */
function isSensibleBreak(name: string, at: number): boolean {
  if (/[-_.\s]/.test(name[at - 1])) return true;
  const runStart = Math.max(...[..."-_. "].map((separator) => name.lastIndexOf(separator, at - 1) + 1));
  return (at - runStart) % CHUNK === 0;
}

describe("CDN file names at 360 px", () => {
  it("wrap at sensible points only, with no sideways scroll", async () => {
    const client = new Client(server.url);
    await client.signup();
    for (const name of NAMES) expect((await uploadFile(client, "hello", name)).status).toBe(201);
    const context = await contextAs(browser, server, client, { viewport: PHONE });
    try {
      const page = await context.newPage();
      await page.goto("/cdn");
      await page.getByRole("heading", { name: "CDN", level: 1 }).waitFor();
      await page.getByRole("link", { name: NAMES[0] }).waitFor();
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

      for (const name of NAMES) {
        const link = page.getByRole("link", { name, exact: true });
        expect(await link.innerText()).toBe(name);
        // The offsets at which a new line starts, read from each character's box.
        const breaks = await link.evaluate((element) => {
          const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
          const tops: number[] = [];
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (let i = 0; i < node.textContent!.length; i++) {
              const range = document.createRange();
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              tops.push(Math.round(range.getBoundingClientRect().top));
            }
          }
          return tops.flatMap((top, i) => (i > 0 && top > tops[i - 1] ? [i] : []));
        });
        if (name.length <= CHUNK) expect(breaks, name).toEqual([]);
        if (name.length > 2 * CHUNK) expect(breaks.length, name).toBeGreaterThan(0);
        for (const at of breaks) expect(isSensibleBreak(name, at), `${name} breaks at ${at}`).toBe(true);
      }
      await page.screenshot({ path: "test-results/phone/cdn-file-names.png", fullPage: true });
    } finally {
      await context.close();
    }
  });
});
