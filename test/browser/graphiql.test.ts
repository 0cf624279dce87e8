// GraphiQL at /graphql comes from the platform itself: in Chromium, the page makes no request to another
// origin, breaks no rule of its Content-Security-Policy, and runs a query.
import type { Browser } from "playwright-core";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
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

describe("GraphiQL", () => {
  it("is a page with a strict script policy that links only this server's files", async () => {
    const res = await request(`${server.url}/graphql`, { headers: { accept: "text/html" } });
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*(unsafe-inline|unsafe-eval|https?:)/);
    const html = await res.body.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/<script>|<style/); // no inline code: every script is a file
    const assets = [...html.matchAll(/(?:src|href)="(\/_graphiql\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const file = await request(server.url + asset, { headers: { "accept-encoding": "br" } });
      expect(file.statusCode, asset).toBe(200);
      expect(file.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(file.headers["content-encoding"]).toBe("br");
      await file.body.dump();
    }
    const missing = await request(`${server.url}/_graphiql/0.0.0/graphiql.js`);
    expect(missing.statusCode).toBe(404);
    expect((await missing.body.json()) as object).toMatchObject({ error: { code: "not_found" } });
  });

  it("loads with every request on the server's origin and no policy violation, and runs a query", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      const origin = new URL(server.url).origin;
      const requests: string[] = [];
      const violations: string[] = [];
      page.on("request", (req) => void requests.push(req.url()));
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      page.on("pageerror", (error) => void violations.push(error.message));

      const query = "{ __typename }";
      await page.goto(`${server.url}/graphql?query=${encodeURIComponent(query)}`);
      const run = page.getByRole("button", { name: /Execute query/i });
      await run.waitFor({ timeout: 30_000 });
      await page.getByText(query).first().waitFor();
      await run.click();
      // The result pane shows the server's answer.
      await expect.poll(() => page.locator(".graphiql-response").innerText(), { timeout: 15_000 }).toMatch(/"__typename":\s*"Query"/);
      await page.screenshot({ path: "test-results/graphiql.png" });

      const elsewhere = requests.filter((url) => !url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== origin);
      expect(elsewhere).toEqual([]);
      expect(requests.filter((url) => url.includes("/_graphiql/")).length).toBeGreaterThanOrEqual(3);
      expect(violations).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
