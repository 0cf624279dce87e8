// The apps pages in Chromium against the real server (serving web/build: run `npm run build:web` first): a new
// account's first step, creating an app (its deploy help listing the languages Slipway builds), deploying a zip
// (chosen, then dropped) with its build log, the app going live, the builder in the deployment list, runtime log
// lines with their colours (and markup shown as text), env vars by bulk paste, scaling, and deleting the app by
// typing its slug, each on its tab of the app's page. The apps run as real processes.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { uploadZip, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

async function signUp(): Promise<{ page: Page; name: string }> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  const name = await signUpOn(page, "dev", { waitForApps: false });
  return { page, name };
}

/** A Node app that logs a coloured line and a line of markup, and answers with its GREETING; `padding` bytes of noise make the zip larger. */
function app(version: string, padding = 0): Promise<Buffer> {
  const server = [
    `console.log("\\x1b[32mready\\x1b[0m ${version} on port " + process.env.PORT);`,
    `console.log("<b>not bold</b> <img src=x onerror=alert(1)>");`,
    `require("http").createServer((q, s) => s.end("${version} says " + process.env.GREETING)).listen(process.env.PORT);`,
  ].join("\n");
  const noise = randomBytes(padding).toString("base64");
  return zipFolder(null, { "package.json": JSON.stringify({ name: "greeter", version: "1.0.0" }), "server.js": server, ...(padding ? { "noise.txt": noise } : {}) });
}

describe("apps pages", () => {
  it("takes a new account from its first app to a running deployment with live logs and env vars, then deletes it", async () => {
    const { page } = await signUp();
    // No app yet: home is the apps page with the first step.
    await page.waitForURL("**/apps");
    const firstStep = page.getByRole("region", { name: "Create your first app" });
    // Once seen in CI and never again: the page said something else; the failure shows what.
    await firstStep.waitFor().catch(async (error) => {
      throw new Error(`no first step at ${page.url()}: ${(await page.innerText("body").catch(() => "")).slice(0, 800)}`, { cause: error });
    });
    await page.screenshot({ path: "/tmp/apps-first-step.png", fullPage: true });
    expect(await page.getByRole("region", { name: "App quota" }).innerText()).toMatch(/Apps\s+0 of 5 used/);

    // What is wrong with the slug shows beside it, which gets the focus.
    await firstStep.getByLabel("Slug").fill("Not_A_Slug");
    await firstStep.getByRole("button", { name: "Create app" }).click();
    await page.locator("#app-slug-error").getByText('"Not_A_Slug" has capital letters and "_". Try "not-a-slug".').waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("app-slug");

    const slug = `greeter-${process.pid}`;
    await firstStep.getByLabel("Slug").fill(slug);
    await firstStep.getByLabel("Name").fill("Greeter");
    await firstStep.getByLabel("Description").fill("Says hello");
    await firstStep.getByRole("button", { name: "Create app" }).click();
    await page.waitForURL(`**/apps/${slug}`);
    const overview = page.getByRole("region", { name: "Greeter" });
    await overview.getByText("Not deployed", { exact: true }).waitFor();

    // Not deployed yet, the deploy help is open on the languages Slipway builds: what each looks for, what it runs.
    const deploy = page.getByRole("region", { name: "Deploy" });
    const languages = deploy.locator("details", { hasText: "Languages Slipway builds" });
    expect(await languages.evaluate((details: HTMLDetailsElement) => details.open)).toBe(true);
    expect(await languages.getByRole("term").allInnerTexts()).toEqual(["Dockerfile", "Node.js", "Python", "Go", "Ruby", "PHP", "Static site"]);
    const python = languages.locator("div", { has: page.getByRole("term").filter({ hasText: "Python" }) });
    expect(await python.innerText()).toMatch(/requirements\.txt[\s\S]*uv\.lock[\s\S]*web: gunicorn app:app \(Django needs none\)/);
    await languages.screenshot({ path: "/tmp/apps-languages.png" });
    // At a phone's width it reads in one column, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    await languages.screenshot({ path: "/tmp/apps-languages-390.png" });
    await page.setViewportSize({ width: 1200, height: 900 });

    // Choose a zip (sent slowly, to see the upload's progress): the build log streams in, and the app goes live.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 40_000 });
    await page.locator("#deploy-file").setInputFiles({ name: "v1.zip", mimeType: "application/zip", buffer: await app("v1", 120_000) });
    const progress = page.getByRole("progressbar", { name: /^Uploading v1\.zip: \d+%$/ });
    await progress.waitFor();
    await expect.poll(async () => Number(await progress.getAttribute("value")), { timeout: 10_000 }).toBeGreaterThan(0);
    await progress.waitFor({ state: "detached", timeout: 20_000 });
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await overview.getByText("Live", { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByRole("region", { name: "Live deploy" }).getByText("built with node", { exact: true }).waitFor();

    // The Deploys tab: the build log of the newest deployment, and the list with the builder of each.
    const tabs = page.getByRole("navigation", { name: "App sections" });
    await tabs.getByRole("link", { name: "Deploys" }).click();
    const buildLog = page.getByRole("log", { name: "Build log" });
    await buildLog.getByText("-----> Building").waitFor({ timeout: 30_000 });
    await buildLog.getByText("-----> Sending traffic to the new release").waitFor();
    const deployments = page.getByRole("region", { name: "Deployments" });
    await deployments.getByText("Live", { exact: true }).waitFor();
    // The badge says which builder built it ("built with" for screen readers); deployed, the deploy help folds away.
    expect(await deployments.innerText()).toMatch(/Zip upload\s+built with\s+node · .* took/);
    await deployments.getByText("built with node", { exact: true }).waitFor();
    expect(await languages.evaluate((details: HTMLDetailsElement) => details.open)).toBe(false);

    // Runtime log lines (the Logs tab): colours as classed spans, markup as text.
    await tabs.getByRole("link", { name: "Logs" }).click();
    const runtimeLog = page.getByRole("log", { name: "Runtime log" });
    await runtimeLog.getByText("ready v1 on port").waitFor();
    expect(await runtimeLog.locator("span.ansi-fg-2").first().innerText()).toBe("ready");
    await runtimeLog.getByText("<b>not bold</b> <img src=x onerror=alert(1)>").waitFor();
    expect(await runtimeLog.locator("b, img").count()).toBe(0);

    // The address is a link to the live app, served through the platform's router (Chromium resolves *.localhost).
    const url = await overview.getByRole("link").first().getAttribute("href");
    expect(url).toBe(`http://${slug}.localhost:${new URL(server.url).port}/`);
    expect(await overview.getByRole("link").first().getAttribute("target")).toBe("_blank");
    const visit = async () => {
      const tab = await page.context().newPage();
      try {
        await tab.goto(url!);
        return await tab.innerText("body");
      } finally {
        await tab.close();
      }
    };
    expect(await visit()).toBe("v1 says undefined");
    await page.screenshot({ path: "/tmp/apps-page.png", fullPage: true });

    // Bulk paste (the Environment tab): comments and blank lines skipped, export dropped, quotes removed; values hidden until revealed.
    await tabs.getByRole("link", { name: "Environment" }).click();
    const env = page.getByRole("region", { name: "Environment variables" });
    await env.getByRole("button", { name: "Paste .env lines" }).click();
    await env.getByLabel("Variables, one KEY=VALUE per line").fill('# the greeting\n\nexport GREETING="hello world"\nSHOUT=yes\n');
    await env.getByRole("button", { name: "Save variables" }).click();
    await env.getByRole("button", { name: "Reveal GREETING" }).waitFor();
    await env.getByRole("button", { name: "Reveal SHOUT" }).waitFor();
    expect(await env.innerText()).not.toContain("hello world");
    await env.getByRole("button", { name: "Reveal GREETING" }).click();
    await env.getByText("hello world", { exact: true }).waitFor();
    // The running app restarts with it.
    await expect.poll(visit, { timeout: 20_000 }).toBe("v1 says hello world");
    await tabs.getByRole("link", { name: "Logs" }).click();
    await runtimeLog.getByText("Restarting with the new environment variables.").waitFor();

    // Drop a second zip on the Deploys tab: a new deployment goes live, and the first can be rolled back to.
    await tabs.getByRole("link", { name: "Deploys" }).click();
    const zip = await app("v2");
    const dataTransfer = await page.evaluateHandle((bytes) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], "v2.zip", { type: "application/zip" }));
      return transfer;
    }, [...zip]);
    await page.getByRole("group", { name: "Deploy" }).dispatchEvent("drop", { dataTransfer });
    await expect.poll(visit, { timeout: 30_000 }).toBe("v2 says hello world");
    await deployments.getByRole("button", { name: /^Roll back to / }).waitFor();
    expect(await deployments.getByRole("listitem").filter({ has: page.getByRole("heading", { name: /Deployment/ }) }).count()).toBe(2);
    await page.screenshot({ path: "/tmp/apps-page-2.png", fullPage: true });

    // Scale web to 2 from the Processes panel on the Overview: both show up, live; past the quota the panel says why.
    await tabs.getByRole("link", { name: "Overview" }).click();
    const web = page.getByRole("region", { name: "Processes" }).getByRole("article", { name: "web" });
    await web.getByText("web.1", { exact: true }).waitFor();
    await web.getByRole("spinbutton", { name: "web instances" }).fill("2");
    await web.getByRole("button", { name: "Scale web" }).click();
    await web.getByRole("cell", { name: "web.2" }).waitFor();
    await expect.poll(() => web.getByText("Healthy", { exact: true }).count(), { timeout: 30_000 }).toBe(2);
    await web.getByRole("spinbutton", { name: "web instances" }).fill("9");
    await web.getByRole("button", { name: "Scale web" }).click();
    await web.getByRole("alert").getByText(/runs 9 instances of .*past your maxInstances of 4/).waitFor();
    await tabs.getByRole("link", { name: "Logs" }).click();
    await runtimeLog.getByText("web.2", { exact: true }).first().waitFor();

    // Delete, in Settings: the button waits for the slug.
    await tabs.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("button", { name: "Delete app…" }).click();
    const dialog = page.getByRole("alertdialog", { name: `Delete ${slug}?` });
    const confirm = dialog.getByRole("button", { name: "Delete this app" });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${slug} to confirm`).fill(slug.slice(0, -1));
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${slug} to confirm`).fill(slug);
    await confirm.click();
    await page.waitForURL("**/apps");
    await page.getByRole("region", { name: "Create your first app" }).waitFor();
    expect(await server.slipway.platform.db.app.count({ where: { slug } })).toBe(0);
  });

  it("lists apps with their live status and shows the quota's refusal on the form", async () => {
    const { page, name } = await signUp();
    await page.waitForURL("**/apps");
    const slug = `listed-${process.pid}`;
    const firstStep = page.getByRole("region", { name: "Create your first app" });
    await firstStep.getByLabel("Slug").fill(slug);
    await firstStep.getByRole("button", { name: "Create app" }).click();
    await page.waitForURL(`**/apps/${slug}`);

    // Signed in with an app, home is still the apps page; it lists the app with its status, live.
    await page.goto("/");
    await page.waitForURL("**/apps");
    const card = page.getByRole("article", { name: slug });
    await card.getByText("Not deployed").waitFor();
    const address = card.getByRole("link", { name: /^http/ });
    expect(await address.count()).toBe(0);
    // Deployed from elsewhere (the API, with the same session), the row follows.
    const session = (await page.context().cookies()).find((cookie) => cookie.name === "slipway_session");
    const api = new Client(server.url);
    api.cookie = `slipway_session=${session!.value}`;
    expect((await uploadZip(api, slug, await app("v1"))).status).toBe(202);
    await card.getByText("Live", { exact: true }).waitFor({ timeout: 30_000 });
    // Live, its address is a link that opens the app in a new tab.
    expect(await address.getAttribute("href")).toBe((await api.get(`/api/apps/${slug}`)).body.url);
    expect(await address.getAttribute("target")).toBe("_blank");

    // At the limit, the server's 403 quota_exceeded shows above the form.
    const { db } = server.slipway.platform;
    const user = await db.user.findUniqueOrThrow({ where: { name } });
    await db.quota.update({ where: { userId: user.id }, data: { maxApps: 1 } });
    await page.reload();
    await page.getByText("You have reached your limit of 1 apps").waitFor();
    await page.getByRole("button", { name: "New app" }).click();
    await page.getByLabel("Slug").fill(`second-${process.pid}`);
    await page.getByRole("button", { name: "Create app" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toContain("You have 1 of 1 apps allowed. Delete one or ask for a higher limit.");
  });
});
