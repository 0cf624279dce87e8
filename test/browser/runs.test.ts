// The Runs tab of an app's page in Chromium against the real server (serving web/build: run `npm run build:web`
// first): the tab after Logs at its own address, a command run from the form with its output shown live and its
// status and exit code in the list, a bad command refused beside its field, a running run canceled, and interactive
// runs on the tab's terminal (typed input, Ctrl-C). The commands run as real sandboxed processes in the app's live
// release (on a pty for the terminal's).
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { waitFor, zipFolder } from "../helpers/apps.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

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

async function signUp(): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } });
  contexts.push(context);
  const page = await context.newPage();
  await signUpOn(page);
  return page;
}

/** Creates the app and deploys a small Node app to it over the API (with the page's session), until it is live. */
async function deployedApp(page: Page, slug: string): Promise<void> {
  const headers = { origin: server.url };
  expect((await page.request.post("/api/apps", { data: { slug }, headers })).status()).toBe(201);
  const zip = await zipFolder(null, {
    "package.json": JSON.stringify({ name: "t" }),
    "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`,
  });
  const upload = await page.request.put(`/api/apps/${slug}/deploy`, { multipart: { file: { name: "app.zip", mimeType: "application/zip", buffer: zip } }, headers });
  expect(upload.status()).toBe(202);
  await waitFor(async () => (await (await page.request.get(`/api/apps/${slug}`)).json()).status === "RUNNING", 60_000, "the app to run");
}

describe("the Runs tab", () => {
  it("runs a command and shows its output live, its status and exit code; refuses an empty command; cancels a running one", async () => {
    const page = await signUp();
    const slug = `runs-ui-${process.pid}`;
    await deployedApp(page, slug);
    await page.goto(`/apps/${slug}/logs`);
    const tabs = page.getByRole("navigation", { name: "App sections" });
    await tabs.getByRole("link", { name: "Runs" }).click();
    await page.waitForURL(`**/apps/${slug}/runs`);
    expect(await tabs.getByRole("link", { name: "Runs" }).getAttribute("aria-current")).toBe("page");
    expect(await page.title()).toBe(`Runs · ${slug} · Apps · Slipway`);
    await page.getByRole("region", { name: "Runs" }).getByText("No runs yet").waitFor();

    // An empty command: the server's message beside the field, focus on it.
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.locator("#run-command-error").getByText("Give the command to run").waitFor();
    expect(await page.locator("#run-command").evaluate((el) => el === document.activeElement)).toBe(true);

    await page.getByRole("textbox", { name: "Command" }).fill("echo hello from a run; exit 2");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.getByRole("log", { name: "Run output" }).getByText("hello from a run", { exact: true }).waitFor();
    const list = page.getByRole("region", { name: "Runs" });
    const first = list.getByRole("article").first();
    await first.getByText("Failed", { exact: true }).waitFor();
    expect(await first.getByText("exit code 2").count()).toBe(1);
    expect(await first.getByRole("heading").innerText()).toBe("echo hello from a run; exit 2");
    expect(await page.getByRole("textbox", { name: "Command" }).inputValue()).toBe("");

    await page.getByRole("textbox", { name: "Command" }).fill("sleep 60");
    await page.getByLabel("Timeout (seconds)").fill("120");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const sleeping = list.getByRole("article").filter({ hasText: "sleep 60" });
    await sleeping.getByText("Running", { exact: true }).waitFor();
    await sleeping.getByRole("button", { name: /^Cancel/ }).click();
    await sleeping.getByText("Canceled", { exact: true }).waitFor();
    expect(await sleeping.getByRole("button", { name: /^Cancel/ }).count()).toBe(0);

    // The earlier run's output again, chosen from the list.
    await list.getByRole("article").filter({ hasText: "hello from a run" }).getByRole("button", { name: /^Output/ }).click();
    await page.getByRole("log", { name: "Run output" }).getByText("hello from a run", { exact: true }).waitFor();
  });
});

describe("the Runs tab's terminal", () => {
  /** Starts `command` with "Interactive terminal" ticked; the terminal's region, once attached. */
  async function interactiveRun(page: Page, command: string) {
    await page.getByRole("checkbox", { name: "Interactive terminal" }).check();
    await page.getByRole("textbox", { name: "Command" }).fill(command);
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const terminal = page.getByRole("region", { name: /^Terminal/ });
    await terminal.getByRole("status").filter({ hasText: "Connected" }).waitFor();
    return terminal;
  }

  it("runs a command on a terminal fitted to the page that takes what is typed, shows its output and its exit, and closes", async () => {
    const page = await signUp();
    const slug = `tty-ui-${process.pid}`;
    await deployedApp(page, slug);
    await page.goto(`/apps/${slug}/runs`);
    expect(await page.getByRole("checkbox", { name: "Interactive terminal" }).isChecked()).toBe(false);

    const terminal = await interactiveRun(page, "read name; echo hello-$name; stty size");
    // Focus is in the terminal already: the keyboard types into the command.
    expect(await page.evaluate(() => !!document.activeElement?.closest(".xterm"))).toBe(true);
    await page.keyboard.type("world");
    await page.keyboard.press("Enter");
    await terminal.locator(".xterm-rows > div", { hasText: "hello-world" }).waitFor();
    await terminal.getByRole("status").filter({ hasText: "Exited with code 0" }).waitFor();
    await terminal.locator(".xterm-rows > div", { hasText: "[exited with code 0]" }).waitFor();
    // The pty took the size the terminal fitted to its box (not the 100x30 it started with).
    const rows = await terminal.locator(".xterm-rows > div").count();
    const size = await terminal.locator(".xterm-rows > div", { hasText: /^\d+ \d+\s*$/ }).innerText();
    expect(size.trim()).toMatch(new RegExp(`^${rows} \\d+$`));
    expect(size.trim()).not.toBe("30 100");
    const run = page.getByRole("region", { name: "Runs" }).getByRole("article").filter({ hasText: "hello-$name" });
    await run.getByText("Succeeded", { exact: true }).waitFor();

    await terminal.getByRole("button", { name: "Close terminal" }).click();
    await terminal.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("run-output-title");
  });

  it("interrupts a command with Ctrl-C", async () => {
    const page = await signUp();
    const slug = `tty-int-${process.pid}`;
    await deployedApp(page, slug);
    await page.goto(`/apps/${slug}/runs`);

    const terminal = await interactiveRun(page, "echo ready; sleep 100");
    await terminal.locator(".xterm-rows > div", { hasText: "ready" }).waitFor();
    await page.keyboard.press("Control+c");
    await terminal.getByRole("status").filter({ hasText: "signal SIGINT" }).waitFor();
    const run = page.getByRole("region", { name: "Runs" }).getByRole("article").filter({ hasText: "sleep 100" });
    await run.getByText("Failed", { exact: true }).waitFor();
  });
});
