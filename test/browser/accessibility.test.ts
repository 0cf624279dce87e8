// axe-core (the accessibility engine) on every page of the dashboard, in light and dark, at desktop and
// phone size: no serious or critical violation. Screenshots of each go to test-results/pages/. Needs
// `npm run build:web`.
import fs from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { clientFor, contextAs, openDashboardPage, seedDashboard, type Seeded } from "../helpers/dashboard-pages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 360, height: 740 } };

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

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** Serious and critical violations on the page as it is now, one line each. */
async function seriousViolations(page: Page, where: string): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((node) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${JSON.stringify(node.target)}: ${node.failureSummary?.replace(/\s+/g, " ")}`));
}

/** WCAG contrast ratio of two colours as the browser computes them ("rgb(r, g, b)"). */
function contrast(a: string, b: string): number {
  const luminance = (color: string) => {
    const [r, g, bl] = color.match(/[\d.]+/g)!.slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high + 0.05) / (low + 0.05);
}

describe("non-text contrast (3:1), light and dark", () => {
  for (const scheme of ["light", "dark"] as const) {
    it(`the focus ring, input borders and empty quota bars stand out from the card and the page, ${scheme}`, async () => {
      const target = seed.pages.find((p) => p.name === "account")!;
      const context = await contextAs(browser, server, seed.user, { viewport: SIZES.desktop, colorScheme: scheme });
      try {
        const page = await context.newPage();
        await openDashboardPage(page, target);
        const input = page.getByLabel("Username", { exact: true }).first();
        await input.waitFor();
        await page.keyboard.press("Tab"); // keyboard focus, so :focus-visible applies
        const seen = await page.evaluate(() => {
          const css = (element: Element) => getComputedStyle(element);
          const card = document.querySelector(".card")!;
          const field = document.querySelector<HTMLInputElement>(".card input[type=text], .card input[type=email]")!;
          field.focus({ focusVisible: true } as FocusOptions);
          const emptyBar = [...document.querySelectorAll(".bar")].find((bar) => (bar.firstElementChild as HTMLElement | null)?.style.width === "0%");
          return {
            card: css(card).backgroundColor,
            page: css(document.body).backgroundColor,
            inputBorder: css(field).borderTopColor,
            focusRing: css(field).outlineColor,
            focusStyle: css(field).outlineStyle,
            emptyBarEdge: emptyBar ? css(emptyBar).boxShadow : null,
          };
        });
        expect(seen.focusStyle).not.toBe("none");
        for (const [what, color] of [
          ["input border", seen.inputBorder],
          ["focus ring", seen.focusRing],
          ["empty quota bar's edge", seen.emptyBarEdge],
        ] as const) {
          expect(color, `${what} (${scheme})`).toBeTruthy();
          expect(contrast(color!, seen.card), `${what} on the card (${scheme}): ${color} on ${seen.card}`).toBeGreaterThanOrEqual(3);
          expect(contrast(color!, seen.page), `${what} on the page (${scheme}): ${color} on ${seen.page}`).toBeGreaterThanOrEqual(3);
        }
      } finally {
        await context.close();
      }
    });
  }
});

describe("accessibility", () => {
  for (const scheme of ["light", "dark"] as const) {
    for (const [size, viewport] of Object.entries(SIZES)) {
      it(`every page has no serious or critical axe violation, ${scheme}, ${size}`, async () => {
        const found: string[] = [];
        for (const target of seed.pages) {
          // Past the server pages' CSP (no scripts at all), so axe can be injected.
          const context = await contextAs(browser, server, clientFor(seed, target), { viewport, colorScheme: scheme, bypassCSP: true });
          try {
            const page = await context.newPage();
            await openDashboardPage(page, target);
            await page.waitForLoadState("networkidle");
            await page.screenshot({ path: `test-results/pages/${target.name}-${scheme}-${size}.png`, fullPage: true });
            found.push(...(await seriousViolations(page, `${target.path} (${scheme}, ${size})`)));
            if (size === "phone" && target.as !== "visitor" && !target.server) {
              // The open menu is a state of every signed-in page.
              await page.getByRole("button", { name: "Menu" }).click();
              found.push(...(await seriousViolations(page, `${target.path} with the menu open (${scheme}, ${size})`)));
            }
          } finally {
            await context.close();
          }
        }
        expect(found).toEqual([]);
      }, 180_000); // a dozen pages, each opened, screenshotted and checked
    }
  }
});
