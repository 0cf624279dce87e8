// The Databases panel of an app's page in Chromium against the real server (serving web/build: run
// `npm run build:web` first), on a platform that provisions PostgreSQL: create one of each type (the type
// chooser), reveal a URL, back up now, download the backup, restore it after confirming, delete by typing its name.
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signUpOn } from "../helpers/browser.ts";
import { POSTGRES_ADMIN_URL, startServer, type TestServer } from "../helpers/server.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  server = await startServer({ POSTGRES_PROVISION_URL: POSTGRES_ADMIN_URL, DEFAULT_REQUESTS_PER_MINUTE: "100000" });
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
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  contexts.push(context);
  const page = await context.newPage();
  await signUpOn(page);
  return page;
}

async function confirm(page: Page, title: string, button: string, typed?: string) {
  const dialog = page.getByRole("alertdialog", { name: title });
  if (typed) await dialog.getByLabel(`Type ${typed} to confirm`).fill(typed);
  await dialog.getByRole("button", { name: button }).click();
  await dialog.waitFor({ state: "hidden" });
}

describe("databases panel", () => {
  it("creates, reveals, backs up, downloads, restores and deletes an app's databases", async () => {
    const page = await signUp();
    const slug = `dbui-${process.pid}`;
    expect((await page.request.post("/api/apps", { data: { slug }, headers: { origin: server.url } })).status()).toBe(201);
    await page.goto(`/apps/${slug}/resources`);
    const panel = page.getByRole("region", { name: "Databases" });

    // PostgreSQL is the default type here; SQLite is the other choice.
    await expect.poll(() => panel.getByRole("radio", { name: "PostgreSQL" }).isChecked()).toBe(true);
    await panel.getByRole("button", { name: "Create database" }).click();
    const main = panel.getByRole("listitem", { name: "Database main" });
    await main.waitFor();
    expect(await main.getByText("DATABASE_URL", { exact: true }).count()).toBe(1);
    await panel.getByRole("radio", { name: "SQLite" }).check();
    await panel.getByLabel("Name").fill("cache");
    await panel.getByRole("button", { name: "Create database" }).click();
    const cache = panel.getByRole("listitem", { name: "Database cache" });
    await cache.waitFor();
    expect(await cache.getByText("DATABASE_URL_CACHE").count()).toBe(1);

    // The URL only on demand.
    expect(await main.getByTestId("database-url").count()).toBe(0);
    await main.getByRole("button", { name: "Reveal URL of main" }).click();
    const url = await main.getByTestId("database-url").textContent();
    expect(url).toMatch(/^postgresql:\/\/slipway_\w+:[\w-]+@[\d.]+:5432\/slipway_\w+$/);

    // A row, a backup, the row deleted, the backup restored.
    const direct = new pg.Client({ connectionString: url!.replace(/@[\d.]+:/, "@127.0.0.1:") });
    await direct.connect();
    await direct.query("CREATE TABLE notes (body text); INSERT INTO notes VALUES ('remember me')");
    await main.getByRole("button", { name: "Back up now main" }).click();
    const row = main.getByRole("row").nth(1);
    await row.waitFor();
    expect(await row.textContent()).toMatch(/\d+(\.\d)? (B|KiB).*manual/);
    const download = page.waitForEvent("download");
    await row.getByRole("link", { name: /^Download/ }).click();
    const file = await (await download).path();
    expect(fs.readFileSync(file).subarray(0, 5).toString()).toBe("PGDMP");
    await direct.query("DELETE FROM notes");
    await direct.end(); // a restore ends the database's other sessions
    await row.getByRole("button", { name: "Restore" }).click();
    await confirm(page, "Restore main?", "Restore backup");
    await page.getByText("Restored main").waitFor();
    const after = new pg.Client({ connectionString: url!.replace(/@[\d.]+:/, "@127.0.0.1:") });
    await after.connect();
    expect((await after.query("SELECT body FROM notes")).rows).toEqual([{ body: "remember me" }]);
    await after.end();

    // Delete asks for the name, then the database is gone from the page.
    await cache.getByRole("button", { name: "Delete cache" }).click();
    await confirm(page, "Delete the database cache?", "Delete database", "cache");
    await cache.waitFor({ state: "detached" });
    expect(await panel.getByRole("listitem").count()).toBe(1);
  });
});

describe("a database's backups, a page at a time", () => {
  it("shows the 10 newest, and Load more appends the older ones, moves the focus to the first of them and goes away", async () => {
    const page = await signUp();
    const slug = `dbmore-${process.pid}`;
    const headers = { origin: server.url };
    expect((await page.request.post("/api/apps", { data: { slug }, headers })).status()).toBe(201);
    const created = await page.request.post(`/api/apps/${slug}/resources`, { data: { type: "sqlite", name: "notes" }, headers });
    expect(created.status()).toBe(201);
    const { id } = await created.json();
    for (let i = 0; i < 12; i++) expect((await page.request.post(`/api/resources/${id}/backups`, { headers })).status()).toBe(201);
    const newestFirst: { id: string }[] = await (await page.request.get(`/api/resources/${id}/backups`)).json();
    expect(newestFirst).toHaveLength(12);

    await page.goto(`/apps/${slug}/resources`);
    const database = page.getByRole("listitem", { name: "Database notes" });
    const rows = database.getByTestId("backup-row");
    const more = database.getByRole("button", { name: "Load 10 more backups of notes" });
    await more.waitFor();
    expect(await rows.count()).toBe(10);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.id))).toEqual(newestFirst.slice(0, 10).map((b) => `backup-${b.id}`));

    await more.focus();
    await page.keyboard.press("Enter");
    await more.waitFor({ state: "detached" });
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.id))).toEqual(newestFirst.map((b) => `backup-${b.id}`));
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`backup-${newestFirst[10].id}`);

    // The oldest backup can be downloaded from the page.
    const download = page.waitForEvent("download");
    await rows.last().getByRole("link", { name: /^Download/ }).click();
    expect(fs.statSync(await (await download).path()).size).toBeGreaterThan(0);

    // Backing up again reloads the first page: the 10 newest, the button back.
    await database.getByRole("button", { name: "Back up now notes" }).click();
    await more.waitFor();
    expect(await rows.count()).toBe(10);
  });
});
