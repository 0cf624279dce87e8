// The Notifications page in Chromium at phone size against the real server (serving web/build: run
// `npm run build:web` first) and a real local receiver: add a webhook (its secret shown once), send a test and read
// it in the delivery log, a refused URL explained at the field, mails turned off and on, the webhook deleted.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

let server: TestServer;
let browser: Browser;
let receiver: http.Server;
let hookUrl: string;
let pings = 0;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume().on("end", () => {
      pings += 1;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe("the Notifications page", () => {
  it("adds a webhook, shows its secret once, sends a test into the delivery log, toggles mail, deletes it", async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signUpOn(page);
    await page.goto("/notifications");
    await page.getByRole("heading", { name: "Notifications", level: 1 }).waitFor();

    const form = page.getByRole("form", { name: "Add a webhook" });
    await form.getByLabel("Payload URL").fill("http://10.9.8.7/hook");
    await form.getByRole("button", { name: "Add webhook" }).click();
    await form.getByText(/10\.9\.8\.7, a private address/).waitFor();

    await form.getByLabel("Payload URL").fill(hookUrl);
    await form.getByLabel(/deploy\.succeeded/).check();
    await form.getByLabel(/Note/).fill("phone test");
    await form.getByRole("button", { name: "Add webhook" }).click();
    const secret = await page.locator(".reveal code").textContent();
    expect(secret).toMatch(/^whsec_/);
    await page.screenshot({ path: "test-results/notifications/webhook-created-phone.png", fullPage: true });
    await page.getByRole("button", { name: "I saved it" }).click();
    expect(await page.locator(".reveal").count()).toBe(0);

    const hooks = page.getByRole("list", { name: "Your webhooks" });
    await hooks.locator("strong", { hasText: hookUrl }).waitFor();
    for (const event of ["deploy.succeeded", "deploy.failed", "app.crashed"]) await hooks.getByText(event, { exact: true }).waitFor();
    await hooks.getByRole("button", { name: `Send test to ${hookUrl}` }).click();
    await page.getByRole("list", { name: "Deliveries" }).getByText("ping", { exact: true }).waitFor();
    await page.getByRole("list", { name: "Deliveries" }).getByText(/answered 200/).waitFor();
    expect(pings).toBe(1);

    const mail = page.getByLabel(/Mail me when a deploy fails/);
    expect(await mail.isChecked()).toBe(true);
    await mail.uncheck();
    await page.getByText("No more mails about failed deploys and crash loops.").waitFor();
    await page.reload();
    expect(await page.getByLabel(/Mail me when a deploy fails/).isChecked()).toBe(false);

    await page.getByRole("button", { name: `Delete ${hookUrl}` }).click();
    await page.getByRole("button", { name: "Delete webhook" }).click();
    await page.getByText("No webhooks yet.").waitFor();
    await context.close();
  });
});
