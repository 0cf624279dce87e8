// What the dashboard costs to load: fingerprinted files cached for a year and never revalidated, every text
// file sent precompressed (gzip or brotli, as the browser accepts), and each page loading only its own
// GraphQL documents. Measured in Chromium against the real server and its built dashboard (npm run build:web).
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const BUILD = fileURLToPath(new URL("../../web/build/", import.meta.url));
if (!fs.existsSync(path.join(BUILD, "index.html"))) {
  throw new Error(`The dashboard is not built (${BUILD}index.html is missing). Run \`npm run build:web\` before the browser tests.`);
}
const SIGN_IN_BUDGET = 70 * 1024;
// Operations of other pages, which the sign-in page must not download.
const OTHER_PAGES = ["AdminUsers", "AdminStatsPanel", "AppsPage", "AppPage", "OAuthAppsPage", "AccountPage", "CreateOAuthClient", "DeleteApp"];

/** The response as sent, undecoded (fetch() would decode what it recognises). */
async function get(url: string, acceptEncoding: string) {
  const res = await request(url, { headers: { "accept-encoding": acceptEncoding } });
  const header = (name: string) => {
    const value = res.headers[name];
    return value === undefined ? null : String(value);
  };
  return { status: res.statusCode, header, body: Buffer.from(await res.body.arrayBuffer()) };
}

/** Requests that reached the server, from its own request log. */
class RequestLog {
  urls: string[] = [];
  write(line: string) {
    const entry = JSON.parse(line) as { msg?: string; req?: { url?: string } };
    if (entry.msg === "incoming request" && entry.req?.url) this.urls.push(entry.req.url);
  }
}

let server: TestServer;
let browser: Browser;
const log = new RequestLog();

beforeAll(async () => {
  server = await startServer({ LOG_LEVEL: "info" }, { logStream: log });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The largest fingerprinted script index.html links to (a tiny one is not worth compressing). */
function anImmutableScript(): string {
  const html = fs.readFileSync(path.join(BUILD, "index.html"), "utf8");
  const hrefs = [...html.matchAll(/href="(\/_app\/immutable\/[^"]+\.js)"/g)].map((match) => match[1]);
  if (hrefs.length === 0) throw new Error("index.html links no fingerprinted script");
  const size = (href: string) => fs.statSync(path.join(BUILD, href)).size;
  return hrefs.sort((a, b) => size(b) - size(a))[0];
}

describe("dashboard files over HTTP", () => {
  it("sends a fingerprinted file as immutable for a year, in the encoding asked for, with its length", async () => {
    const href = anImmutableScript();
    const original = fs.readFileSync(path.join(BUILD, href));
    for (const [accept, encoding, decode] of [
      ["br", "br", zlib.brotliDecompressSync],
      ["gzip", "gzip", zlib.gunzipSync],
      ["gzip, deflate, br", "br", zlib.brotliDecompressSync],
      ["identity", null, (data: Buffer) => data],
    ] as const) {
      const res = await get(server.url + href, accept);
      expect(res.status).toBe(200);
      expect(res.header("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.header("vary")).toMatch(/accept-encoding/i);
      expect(res.header("content-encoding")).toBe(encoding);
      expect(res.header("content-type")).toMatch(/javascript/);
      const body = res.body;
      expect(Number(res.header("content-length"))).toBe(body.length);
      if (encoding) expect(body.length).toBeLessThan(original.length);
      expect(decode(body).equals(original)).toBe(true);
    }
  });

  it("asks the browser never to store the page itself (Back after sign-out), at its address and at a client route, compressed", async () => {
    const original = fs.readFileSync(path.join(BUILD, "index.html"));
    for (const url of ["/", "/apps", "/oauth-apps"]) {
      const res = await get(server.url + url, "gzip");
      expect(res.status).toBe(200);
      expect(res.header("cache-control")).toBe("no-store");
      expect(res.header("content-type")).toMatch(/^text\/html/);
      expect(res.header("content-encoding")).toBe("gzip");
      expect(res.header("vary")).toMatch(/accept-encoding/i);
      expect(zlib.gunzipSync(res.body).equals(original)).toBe(true);
    }
  });
});

describe("the sign-in page in a browser", () => {
  it("loads in at most 70 KB, without other pages' documents, and a repeat visit fetches nothing immutable", async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      const loaded: { url: string; bytes: number; body: string }[] = [];
      const pending: Promise<void>[] = [];
      page.on("requestfinished", (request) => {
        pending.push(
          (async () => {
            const sizes = await request.sizes();
            const response = await request.response();
            const body = response && /javascript/.test(response.headers()["content-type"] ?? "") ? await response.text() : "";
            loaded.push({ url: request.url(), bytes: sizes.responseHeadersSize + sizes.responseBodySize, body });
          })(),
        );
      });
      await page.goto("/login", { waitUntil: "networkidle" });
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      await Promise.all(pending);

      const total = loaded.reduce((sum, entry) => sum + entry.bytes, 0);
      console.log(`sign-in page first load: ${loaded.length} requests, ${(total / 1024).toFixed(1)} KB`);
      expect(loaded.some((entry) => entry.url.includes("/_app/immutable/"))).toBe(true);
      expect(total, loaded.map((entry) => `${entry.bytes} ${entry.url}`).join("\n")).toBeLessThanOrEqual(SIGN_IN_BUDGET);
      const scripts = loaded.map((entry) => entry.body).join("\n");
      expect(scripts).toContain("`Login`"); // the page's own mutation, and no other page's documents
      for (const operation of OTHER_PAGES) expect(scripts, operation).not.toContain(`\`${operation}\``);

      // Again, in a new tab and by reloading: the page is revalidated, no fingerprinted file reaches the server.
      log.urls.length = 0;
      const again = await context.newPage();
      await again.goto("/login", { waitUntil: "networkidle" });
      await again.getByRole("heading", { name: "Sign in" }).waitFor();
      await again.reload({ waitUntil: "networkidle" });
      await again.getByRole("heading", { name: "Sign in" }).waitFor();
      expect(log.urls.filter((url) => url === "/login")).toHaveLength(2);
      expect(log.urls.filter((url) => url.startsWith("/_app/immutable/"))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
