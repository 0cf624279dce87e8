// The dashboard's account page in Chromium against the real server (serving web/build: run
// `npm run build:web` first): changing the name, signing another session out (its cookie stops working),
// and deleting the account after typing the handle.
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client, uniqueName } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { launchChromium } from "../helpers/browser.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

const PASSWORD = "correct horse battery";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

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

async function openPage(): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1200, height: 900 } });
  contexts.push(context);
  return context.newPage();
}

/** An account made over the API, signed in in the browser, on the account page. */
async function signInAndOpen(page: Page) {
  const api = new Client(server.url);
  const account = await api.signup();
  await page.goto("/login");
  await page.getByLabel("Email", { exact: true }).fill(account.email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/apps");
  await page.goto("/account");
  await page.getByRole("heading", { name: "Your account", level: 1 }).waitFor();
  return { api, ...account };
}

describe("account page", () => {
  it("changes the username (labelled so, as on sign-up); a taken one is shown beside the field", async () => {
    const page = await openPage();
    const { api } = await signInAndOpen(page);
    const other = new Client(server.url);
    const taken = await other.signup();
    const profile = page.getByRole("region", { name: "Profile" });
    const name = profile.getByLabel("Username", { exact: true });
    await name.fill(taken.name);
    await profile.getByRole("button", { name: "Save profile" }).click();
    await profile.getByText("This name is taken. Choose another.").waitFor();
    const newName = uniqueName("renamed");
    await name.fill(newName);
    await profile.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Saved your profile.").waitFor();
    await page.getByRole("heading", { name: newName, level: 2 }).waitFor();
    expect((await api.get("/api/me")).body.user.name).toBe(newName);
  });

  it("lists the sessions and signs another one out", async () => {
    const page = await openPage();
    const { api, email } = await signInAndOpen(page);
    const phone = new Client(server.url);
    expect((await phone.request("POST", "/api/auth/login", { json: { email, password: PASSWORD }, headers: { "user-agent": FIREFOX } })).status).toBe(200);
    await page.reload();
    const sessions = page.getByRole("region", { name: "Sessions" });
    // The API client's sign-up session, the browser's own and the Firefox one.
    await expect.poll(() => sessions.getByRole("listitem").count()).toBe(3);
    await sessions.getByRole("listitem").filter({ hasText: "This session" }).waitFor();
    const firefox = sessions.getByRole("listitem", { name: "Firefox on Linux" });
    await firefox.getByText("127.0.0.1").waitFor();
    await firefox.getByRole("button", { name: "Sign out Firefox on Linux" }).click();
    await page.getByText("Signed out Firefox on Linux.").waitFor();
    await firefox.waitFor({ state: "detached" });
    expect((await phone.get("/api/me")).status).toBe(401);
    expect((await api.get("/api/me")).status).toBe(200);
    // Then every other one: only the browser's own session is left.
    await sessions.getByRole("button", { name: "Sign out all other sessions" }).click();
    await page.getByText("Signed out 1 other session.").waitFor();
    await expect.poll(() => sessions.getByRole("listitem").count()).toBe(1);
    expect((await api.get("/api/me")).status).toBe(401);
  });

  it("deletes the account once the handle is typed, and lands on the sign-in page", async () => {
    const page = await openPage();
    const { name, email } = await signInAndOpen(page);
    await page.getByRole("button", { name: "Delete account…" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete your account?" });
    const go = dialog.getByRole("button", { name: "Delete my account" });
    expect(await go.isDisabled()).toBe(true);
    await dialog.getByLabel(`Type ${name} to confirm`).fill(name);
    await go.click();
    await page.waitForURL((url) => url.pathname === "/login");
    expect((await new Client(server.url).post("/api/auth/login", { email, password: PASSWORD })).status).toBe(401);
    expect(await server.slipway.platform.db.user.count({ where: { email } })).toBe(0);
  });
});
