// The Custom domains panel of an app's page in Chromium against the real server (serving web/build: run
// `npm run build:web` first): a bad hostname's message, the DNS record to create, a failed and a passing
// "Verify now", the app answering on the domain, and removal after a confirmation.
import fs from "node:fs";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueName } from "../helpers/client.ts";
import { requestApp } from "../helpers/apps.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { launchChromium } from "../helpers/browser.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

let server: TestServer;
let dns: TestDns;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  dns = await startDns();
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", DOMAIN_VERIFY_RESOLVE: "panel.example.test:127.0.0.1", DOMAIN_VERIFY_DNS_SERVERS: dns.server });
  browser = await launchChromium();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await dns?.close();
});

describe("custom domains panel", () => {
  it("adds a domain, shows the record to create, verifies it and removes it after a confirmation", async () => {
    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const name = uniqueName("dom");
    await page.goto("/signup");
    await page.getByLabel("Email", { exact: true }).fill(`${name}@example.com`);
    await page.getByLabel("Username", { exact: true }).fill(name);
    await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL("**/apps");
    const slug = `panel-${process.pid}`;
    expect((await page.request.post("/api/apps", { data: { slug } })).status()).toBe(201);

    await page.goto(`/apps/${slug}/domains`);
    const panel = page.getByRole("region", { name: "Custom domains" });
    await panel.getByText("No custom domains yet.").waitFor();

    await panel.getByLabel("Hostname").fill("localhost");
    await panel.getByRole("button", { name: "Add domain" }).click();
    await panel.getByText("at least one dot").waitFor();

    // Not pointing here and no TXT record: "Verify now" says why.
    await panel.getByLabel("Hostname").fill("nowhere.example.test");
    await panel.getByRole("button", { name: "Add domain" }).click();
    const nowhere = panel.getByRole("listitem").filter({ hasText: "nowhere.example.test" });
    await nowhere.getByText("Pending verification").waitFor();
    await nowhere.getByRole("button", { name: "Verify now" }).click();
    await panel.getByText(/nowhere\.example\.test is not verified yet/).waitFor();

    await panel.getByLabel("Hostname").fill("Panel.Example.Test");
    await panel.getByRole("button", { name: "Add domain" }).click();
    const row = panel.getByRole("listitem").filter({ hasText: "panel.example.test" });
    await row.getByText("Pending verification").waitFor();
    expect(await row.innerText()).toContain(`CNAME`);
    expect(await row.innerText()).toContain(`${slug}.localhost`);
    expect(await row.innerText()).toContain("_slipway-challenge.panel.example.test");
    expect(await row.innerText()).toContain("Certificate: none");
    await page.screenshot({ path: "/tmp/domains-panel.png", fullPage: true });

    await row.getByRole("button", { name: "Verify now" }).click();
    await row.getByText("Verified", { exact: true }).waitFor();
    expect(await row.getByRole("button", { name: /Verify now/ }).count()).toBe(0);
    // Never deployed: the app's own status page, on the custom domain too.
    expect((await requestApp(server.url, "panel.example.test", "/")).body).toMatch(/Not deployed yet/);

    await row.getByRole("button", { name: "Remove panel.example.test" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Remove panel.example.test?" });
    await dialog.getByRole("button", { name: "Remove domain" }).click();
    await panel.getByRole("listitem").filter({ hasText: "panel.example.test" }).waitFor({ state: "detached" });
    expect(await panel.getByRole("listitem").count()).toBe(1);
    expect((await requestApp(server.url, "panel.example.test", "/")).body).not.toMatch(/Not deployed yet/);
  });
});
