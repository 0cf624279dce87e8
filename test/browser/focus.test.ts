// Where the focus goes after an action, so a keyboard or screen-reader user is never dropped on <body>:
// a failed sign-in, registering an OAuth app, "I have saved it", deleting an OAuth app or a CDN file,
// signing another session out.
// Needs `npm run build:web`.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { Client } from "../helpers/client.ts";
import { contextAs } from "../helpers/dashboard-pages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** What has the focus: its id, or its tag and text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return "body";
    return element.id ? `#${element.id}` : `${element.tagName.toLowerCase()}: ${element.textContent?.trim()}`;
  });

describe("focus after actions", () => {
  it("a failed sign-in puts the focus in the email field, with the error shown", async () => {
    const account = await new Client(server.url).signup();
    const context = await contextAs(browser, server, null, { viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto("/login");
      await page.getByLabel("Email", { exact: true }).fill(account.email);
      await page.getByLabel("Password", { exact: true }).fill("not the password at all");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("alert").filter({ hasText: /password/i }).waitFor();
      await expect.poll(() => focused(page)).toBe("#email");
    } finally {
      await context.close();
    }
  });

  it("on the OAuth apps page: into the new form, to the secret, then to the list after saving it and after a delete", async () => {
    const client = new Client(server.url);
    await client.signup();
    const context = await contextAs(browser, server, client, { viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto("/oauth-apps");
      await page.getByRole("button", { name: "Register an app" }).click();
      await expect.poll(() => focused(page)).toBe("#new-client-name");
      await page.keyboard.type("Focus Bot");
      await page.getByLabel("Redirect URIs").fill("https://bot.example.com/callback");
      await page.getByRole("button", { name: "Register app" }).click();
      await page.getByRole("region", { name: "Client secret for Focus Bot" }).waitFor();
      await expect.poll(() => focused(page)).toBe("section: " + (await page.getByRole("region", { name: "Client secret for Focus Bot" }).textContent())?.trim());

      await page.getByRole("button", { name: "I have saved it" }).click();
      await expect.poll(() => focused(page)).toBe("#clients-title");

      await page.getByRole("link", { name: "Focus Bot" }).click();
      await page.getByRole("button", { name: "Delete Focus Bot" }).click();
      const dialog = page.getByRole("alertdialog", { name: "Delete Focus Bot?" });
      await dialog.getByLabel("Type Focus Bot to confirm").fill("Focus Bot");
      await dialog.getByRole("button", { name: "Delete app" }).click();
      await page.waitForURL((url) => url.pathname === "/oauth-apps");
      await expect.poll(() => focused(page)).toBe("#clients-title");
      expect(await page.getByRole("article", { name: "Focus Bot" }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("signing another session out puts the focus on the sessions' heading", async () => {
    const client = new Client(server.url);
    const account = await client.signup();
    const other = new Client(server.url);
    const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    const login = await other.request("POST", "/api/auth/login", { json: { email: account.email, password: account.password }, headers: { "user-agent": firefox } });
    expect(login.status).toBe(200);
    const context = await contextAs(browser, server, client, { viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto("/account");
      const sessions = page.getByRole("region", { name: "Sessions" });
      const row = sessions.getByRole("listitem", { name: "Firefox on Linux" });
      await row.getByRole("button", { name: "Sign out Firefox on Linux" }).click();
      await row.waitFor({ state: "detached" });
      await expect.poll(() => focused(page)).toBe("#sessions-title");
    } finally {
      await context.close();
    }
  });

  it("deleting a CDN file puts the focus on the list's heading", async () => {
    const client = new Client(server.url);
    await client.signup();
    const form = new FormData();
    form.append("file", new Blob(["hello"], { type: "text/plain" }), "gone.txt");
    expect((await client.request("POST", "/api/cdn", { body: form })).status).toBe(201);
    const context = await contextAs(browser, server, client, { viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto("/cdn");
      await page.getByRole("button", { name: "Delete gone.txt" }).click();
      await page.getByRole("alertdialog", { name: "Delete gone.txt?" }).getByRole("button", { name: "Delete file" }).click();
      await page.getByRole("row", { name: /gone\.txt/ }).waitFor({ state: "detached" });
      await expect.poll(() => focused(page)).toBe("#files-title");
    } finally {
      await context.close();
    }
  });
});
