// The dashboard in a real browser (Debian's Chromium through playwright-core) against the real server,
// which serves the built dashboard from web/build: build it first with `npm run build:web`.
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { verifyEmail } from "../helpers/accounts.ts";
import { Client, uniqueName } from "../helpers/client.ts";
import { linkIn, startMailbox, type Mailbox } from "../helpers/mailbox.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { launchChromium } from "../helpers/browser.ts";

const BUILT_INDEX = fileURLToPath(new URL("../../web/build/index.html", import.meta.url));
if (!fs.existsSync(BUILT_INDEX)) {
  throw new Error(`The dashboard is not built (${BUILT_INDEX} is missing). Run \`npm run build:web\` before the browser tests.`);
}

const PASSWORD = "correct horse battery";
const ADMIN_EMAIL = "chief@example.com";

let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  // launch() gives every run a fresh, temporary user-data-dir; each test gets its own context (cookies).
  browser = await launchChromium();
});
afterAll(() => browser?.close());
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

async function openPage(server: TestServer): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1200, height: 800 } });
  contexts.push(context);
  return context.newPage();
}

async function fillSignup(page: Page, input: { email: string; name: string; password: string }) {
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill(input.email);
  await page.getByLabel("Username", { exact: true }).fill(input.name);
  await page.getByLabel("Password", { exact: true }).fill(input.password);
  await page.getByRole("button", { name: "Create account" }).click();
}

async function fillLogin(page: Page, email: string, password: string) {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const path = (page: Page) => new URL(page.url()).pathname + new URL(page.url()).search;

describe("dashboard", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ ADMIN_EMAILS: ADMIN_EMAIL });
  });
  afterAll(() => server?.close());

  it("sends a signed-out visitor to the sign-in page and, once signed in, on to the page they wanted", async () => {
    const account = await new Client(server.url).signup();
    const page = await openPage(server);
    await page.goto("/apps");
    await page.waitForURL("**/login?next=%2Fapps");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();

    await fillLogin(page, account.email, PASSWORD);
    await page.waitForURL("**/apps");
    await page.getByRole("heading", { name: "Apps", level: 1 }).waitFor();
  });

  it("signs up, shows the account with its quota, signs out, and signs in again", async () => {
    const name = uniqueName("ada");
    const email = `${name}@example.com`;
    const page = await openPage(server);
    await fillSignup(page, { email, name, password: PASSWORD });

    // A new account has no app yet: it lands on the apps page's first step.
    await page.waitForURL("**/apps");
    await page.getByRole("region", { name: "Create your first app" }).waitFor();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await page.getByRole("heading", { name, exact: true }).isVisible()).toBe(true);
    expect(await page.getByText(email, { exact: true }).isVisible()).toBe(true);
    // The default quota of a new account, as usage against limit.
    const quota = page.getByRole("region", { name: "Quota" });
    expect(await quota.innerText()).toMatch(/Apps\s+0 of 5 used/);
    expect(await quota.innerText()).toMatch(/Databases\s+0 of 3 used/);
    expect(await quota.innerText()).toMatch(/CDN storage\s+0 B of 100 MiB used/);
    expect(await quota.innerText()).toMatch(/120 per minute/);
    expect(await quota.innerText()).toMatch(/50 MiB/);
    // Navigation for the sections to come; Admin only for administrators.
    const nav = page.getByRole("navigation", { name: "Main" });
    expect(await nav.getByRole("link").allInnerTexts()).toEqual(["Apps", "Account", "CDN", "OAuth apps", "Notifications"]);
    expect(await page.getByText("waiting for approval").count()).toBe(0);
    await page.screenshot({ path: "/tmp/dashboard-account.png", fullPage: true });

    // Signed in, the sign-in page sends you on home: the apps page.
    await page.goto("/login");
    await page.waitForURL("**/apps");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/login");
    await page.getByText("You are signed out.").waitFor();
    await page.goto("/");
    await page.waitForURL("**/login");

    await fillLogin(page, email, PASSWORD);
    await page.waitForURL("**/apps");
    await page.goto("/account");
    await page.getByRole("heading", { name, exact: true }).waitFor();
    expect(await page.getByRole("region", { name: "Quota" }).innerText()).toMatch(/Apps\s+0 of 5 used/);
  });

  it("shows the server's message beside the password when it is too short at sign-up", async () => {
    const name = uniqueName("short");
    const page = await openPage(server);
    await fillSignup(page, { email: `${name}@example.com`, name, password: "short" });

    const error = page.locator("#password-error");
    await error.waitFor();
    expect(await error.innerText()).toContain("Use a password of at least 8 characters.");
    const password = page.getByLabel("Password", { exact: true });
    expect(await password.getAttribute("aria-invalid")).toBe("true");
    expect((await password.getAttribute("aria-describedby"))?.split(" ")).toContain("password-error");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("password");
    expect(await page.locator("#email-error").count()).toBe(0);
    expect(path(page)).toBe("/signup");
  });

  it("says the email or password is invalid after a wrong password, without signing in", async () => {
    const account = await new Client(server.url).signup();
    const page = await openPage(server);
    await page.goto("/login");
    await fillLogin(page, account.email, "not the password");

    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/invalid email or password/i);
    expect(path(page)).toBe("/login");
    await page.goto("/account");
    await page.waitForURL("**/login?next=%2Faccount");
  });

  it("shows the Admin section to administrators only", async () => {
    const page = await openPage(server);
    await fillSignup(page, { email: ADMIN_EMAIL, name: uniqueName("chief"), password: PASSWORD });
    await page.waitForURL("**/apps");
    await verifyEmail(server, ADMIN_EMAIL); // ADMIN_EMAILS applies to a verified address
    await page.reload();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    await page.waitForURL("**/admin");
    await page.getByRole("heading", { name: "Admin" }).waitFor();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    expect(await page.getByRole("heading", { name: "Audit log" }).isVisible()).toBe(true);

    const user = await openPage(server);
    await fillSignup(user, { email: `${uniqueName("plain")}@example.com`, name: uniqueName("plain"), password: PASSWORD });
    await user.waitForURL("**/apps");
    await user.goto("/admin");
    await user.getByText("Only administrators can open the admin area.").waitFor();
  });

  it("updates the quota on the account page live when it changes (graphql-ws subscription)", async () => {
    const name = uniqueName("live");
    const page = await openPage(server);
    const subscribed = new Promise<void>((resolve) => {
      page.on("websocket", (socket) => socket.on("framereceived", (frame) => String(frame.payload).includes('"next"') && resolve()));
    });
    await fillSignup(page, { email: `${name}@example.com`, name, password: PASSWORD });
    await page.waitForURL("**/apps");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
    await subscribed;

    const { db, services } = server.slipway.platform;
    const user = await db.user.findUniqueOrThrow({ where: { name } });
    await db.quota.update({ where: { userId: user.id }, data: { maxApps: 9 } });
    await services.accounts.changed(user.id);
    await page.getByRole("region", { name: "Quota" }).getByText("0 of 9 used").waitFor();
  });
});

describe("dashboard links mailed for verification and password reset", () => {
  let mailbox: Mailbox;
  let server: TestServer;
  beforeAll(async () => {
    mailbox = await startMailbox();
    server = await startServer({ SMTP_URL: mailbox.url });
  });
  afterAll(async () => {
    await server?.close();
    await mailbox?.close();
  });

  it("shows an unverified address with a resend button, and the mailed link verifies it", async () => {
    const name = uniqueName("verify");
    const email = `${name}@example.com`;
    const page = await openPage(server);
    await fillSignup(page, { email, name, password: PASSWORD });
    await page.waitForURL("**/apps"); // no app yet: the apps page's first step
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
    await page.waitForURL("**/account");
    await mailbox.next(email); // the sign-up mail; use the resent one
    await page.getByText("Unverified", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Resend verification email" }).click();
    await page.getByText(`A new verification link is on its way to ${email}.`).waitFor();

    const link = linkIn(await mailbox.next(email), `${server.url}/verify?token=`);
    await page.goto(link.pathname + link.search);
    await page.getByText(`${email} is verified.`).waitFor();
    await page.getByRole("link", { name: "Go to your account" }).click();
    await page.waitForURL("**/account");
    await page.getByRole("heading", { name, exact: true }).waitFor();
    expect(await page.getByText("Unverified", { exact: true }).count()).toBe(0);
  });

  it("resets a forgotten password from the sign-in page through the mailed link", async () => {
    const account = await new Client(server.url).signup();
    await mailbox.next(account.email);
    const page = await openPage(server);
    await page.goto("/login");
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.waitForURL("**/forgot-password");
    await page.getByLabel("Email", { exact: true }).fill(account.email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByRole("status").getByText(/a link to reset its password is on its way/).waitFor();

    const link = linkIn(await mailbox.next(account.email), `${server.url}/reset-password?token=`);
    await page.goto(link.pathname + link.search);
    const password = page.getByLabel("New password", { exact: true });
    await password.fill("password123");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.locator("#password-error").getByText(/too easy to guess/).waitFor();
    expect(await password.getAttribute("aria-invalid")).toBe("true");

    await password.fill("a brand new passphrase");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.waitForURL("**/login");
    await page.getByText(/Your password is changed/).waitFor();
    await fillLogin(page, account.email, "a brand new passphrase");
    await page.waitForURL("**/apps");
  });
});

describe("dashboard with REQUIRE_APPROVAL", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ REQUIRE_APPROVAL: "true" });
  });
  afterAll(() => server?.close());

  it("tells a pending account that writes are disabled until an administrator approves it", async () => {
    const name = uniqueName("waiting");
    const page = await openPage(server);
    await fillSignup(page, { email: `${name}@example.com`, name, password: PASSWORD });
    await page.waitForURL("**/apps");
    const banner = page.getByRole("note");
    await banner.waitFor();
    expect(await banner.innerText()).toMatch(/waiting for approval.*disabled until an administrator approves/s);
    // The server says the account may not write yet (viewer.can), so the pages offer no write.
    expect(await page.getByRole("button", { name: "Create app" }).isDisabled()).toBe(true);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "OAuth apps" }).click();
    const register = page.getByRole("button", { name: "Register an app" });
    await register.waitFor();
    expect(await register.isDisabled()).toBe(true);
  });
});
