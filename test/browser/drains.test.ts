// The Log drains panel on an app's Logs tab in Chromium against the real server (serving web/build: run
// `npm run build:web` first) and a real syslog receiver: a refused URL's message naming why, a drain added whose
// sent count shows once the app's lines reached the receiver, a dead drain's dropped count and last error, and
// removal after a confirmation.
import fs from "node:fs";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/apps.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { startSyslogReceiver, type SyslogReceiver } from "../helpers/syslog.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

let server: TestServer;
let receiver: SyslogReceiver;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  receiver = await startSyslogReceiver();
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
  browser = await launchChromium();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await receiver?.close();
});

describe("log drains panel", () => {
  it("refuses a private address, adds drains showing sent, dropped and the last error, removes one after a confirmation", async () => {
    context = await browser.newContext({ baseURL: server.url, viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    await signUpOn(page, "drn");
    const slug = `drains-${process.pid}`;
    expect((await page.request.post("/api/apps", { data: { slug } })).status()).toBe(201);

    await page.goto(`/apps/${slug}/logs`);
    const panel = page.getByRole("region", { name: "Log drains" });
    await panel.getByText("No log drains yet.").waitFor();

    await panel.getByLabel("Drain URL").fill("syslog://10.0.0.7:514");
    await panel.getByRole("button", { name: "Add drain" }).click();
    await panel.getByText(/10\.0\.0\.7, a private address/).waitFor();

    const live = `syslog://127.0.0.1:${receiver.port}`;
    const dead = `syslog://127.0.0.1:${await freePort()}`;
    for (const url of [live, dead]) {
      await panel.getByLabel("Drain URL").fill(url);
      await panel.getByRole("button", { name: "Add drain" }).click();
      await panel.getByRole("listitem").filter({ hasText: url }).waitFor();
    }
    expect(await panel.getByText(/private address/).count()).toBe(0);

    const { platform } = server.slipway;
    const app = await platform.db.app.findUniqueOrThrow({ where: { slug } });
    for (let i = 0; i < 3; i++) platform.engine.logs.append(app.id, { kind: "runtime", stream: "stdout", deploymentId: null, process: "web.1", line: `line ${i}` });
    await waitFor(async () => receiver.messages.filter((m) => m.appName === slug).length === 3, 10_000, "the lines at the receiver");

    // The counts are added up every few seconds; the panel shows them on its next load.
    await waitFor(async () => {
      await page.reload();
      const text = await panel.getByRole("listitem").filter({ hasText: dead }).innerText();
      return /ECONNREFUSED/.test(text) && (await panel.getByRole("listitem").filter({ hasText: live }).innerText()).includes("3 sent");
    }, 20_000, "the counts and the last error");
    await page.screenshot({ path: "test-results/drains/drains-panel-phone.png", fullPage: true });

    await panel.getByRole("button", { name: `Remove ${dead}` }).click();
    await page.getByRole("alertdialog", { name: "Remove this drain?" }).getByRole("button", { name: "Remove drain" }).click();
    await panel.getByRole("listitem").filter({ hasText: dead }).waitFor({ state: "detached" });
    expect(await panel.getByRole("listitem").count()).toBe(1);
  });
});
