// The dashboard's OAuth apps page in Chromium against the real server (serving web/build: run
// `npm run build:web` first): registering a client and seeing its secret once, its own page (settings,
// secrets with their last use, a new secret beside the old one, deleting after typing its name); and revoking an app the user authorized, after which its access token is refused.
import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { contextAs } from "../helpers/dashboard-pages.ts";
import type { TestServer } from "../helpers/server.ts";
import { basic, bearer, form, issueTokens, startOAuthServer, userWithClient } from "../oauth/helpers.ts";
import { launchChromium, signUpOn } from "../helpers/browser.ts";

if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");

let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  server = await startOAuthServer();
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
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  contexts.push(context);
  return context.newPage();
}

/** Signs up through the dashboard and opens the OAuth apps page from the navigation. */
async function signUpAndOpen(page: Page): Promise<void> {
  const name = await signUpOn(page);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "OAuth apps" }).click();
  await page.getByRole("heading", { name: "OAuth apps", level: 1 }).waitFor();
}

/** The browser's session as an HTTP client, to act as the same user outside the page. */
async function sessionOf(page: Page): Promise<Client> {
  const session = (await page.context().cookies()).find((cookie) => cookie.name === "slipway_session");
  const api = new Client(server.url);
  api.cookie = `slipway_session=${session!.value}`;
  return api;
}

/** 200 when the client id and secret authenticate at the token introspection endpoint, 401 when not. */
async function secretStatus(clientId: string, secret: string): Promise<number> {
  return (await form(new Client(server.url), "/oauth/introspect", { token: "none" }, basic(clientId, secret))).status;
}

async function confirm(page: Page, title: string, button: string): Promise<void> {
  const dialog = page.getByRole("alertdialog", { name: title });
  await dialog.getByRole("button", { name: button }).click();
  await dialog.waitFor({ state: "hidden" });
}

describe("OAuth apps page", () => {
  it("sends a signed-out visitor to the sign-in page", async () => {
    const page = await openPage();
    await page.goto("/oauth-apps");
    await page.waitForURL("**/login?next=%2Foauth-apps");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
  });

  it("registers a confidential client and shows its secret once; on its page edits it, adds and deletes secrets, and deletes it", async () => {
    const page = await openPage();
    await signUpAndOpen(page);
    const clients = page.getByRole("region", { name: "Your OAuth apps" });
    await clients.getByText("You have not registered any OAuth apps yet.").waitFor();

    // The server's complaint about a redirect URI shows beside that field, which gets the focus.
    await page.getByRole("button", { name: "Register an app" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Deploy Bot");
    await page.getByLabel("Description").fill("Deploys on every push");
    await page.getByLabel("Redirect URIs").fill("not a url");
    await page.getByRole("button", { name: "Register app" }).click();
    const uriError = page.locator("#new-client-redirect-uris-error");
    await uriError.waitFor();
    expect(await uriError.innerText()).toContain('"not a url" is not an absolute URL.');
    expect(await page.getByLabel("Redirect URIs").getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("new-client-redirect-uris");

    await page.getByLabel("Redirect URIs").fill("https://bot.example.com/callback\nhttp://localhost:8080/cb\n");
    await page.getByRole("button", { name: "Register app" }).click();
    const reveal = page.getByRole("region", { name: "Client secret for Deploy Bot" });
    await reveal.waitFor();
    expect(await reveal.innerText()).toContain("Copy it now: it will not be shown again.");
    const secret = await reveal.getByLabel("Client secret").inputValue();
    expect(secret.length).toBeGreaterThan(20);
    await reveal.getByRole("button", { name: "Copy client secret" }).click();
    await reveal.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const card = clients.getByRole("article", { name: "Deploy Bot" });
    const text = await card.innerText();
    const clientId = text.match(/svc_[0-9a-f]{24}/)?.[0];
    expect(clientId).toBeTruthy();
    expect(text).toContain("Deploys on every push");
    expect(text).toContain("Confidential");
    expect(text).toMatch(/Created\s+\w+ \d{1,2}, \d{4}/);
    expect(await secretStatus(clientId!, secret)).toBe(200);
    await card.getByRole("button", { name: "Copy client ID of Deploy Bot" }).click();
    await card.getByText("Copied").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(clientId);

    // Never again: not after a reload.
    await page.reload();
    await card.waitFor();
    expect(await page.getByRole("region", { name: /client secret/i }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // One page per app, from the list.
    await card.getByRole("link", { name: "Deploy Bot" }).click();
    await page.waitForURL(`**/oauth-apps/${clientId}`);
    await page.getByRole("heading", { name: "Deploy Bot", level: 1 }).waitFor();
    const about = page.getByRole("region", { name: "About Deploy Bot" });
    expect(await about.innerText()).toContain("https://bot.example.com/callback");
    expect(await about.innerText()).toContain("http://localhost:8080/cb");

    // Settings: an empty name is refused beside the field; every bad redirect URI is named at once.
    const settings = page.getByRole("region", { name: "Settings" });
    await settings.getByLabel("Name", { exact: true }).fill("");
    await settings.getByRole("button", { name: "Save changes" }).click();
    await page.locator("#edit-client-name-error").getByText("Give the app a name of 1 to 100 characters.").waitFor();
    await settings.getByLabel("Name", { exact: true }).fill("Deploy Robot");
    const bad = ["http://robot.example.com/cb", "https://robot.example.com/cb#top", "https://*.example.com/cb"];
    await settings.getByLabel("Redirect URIs").fill(["https://robot.example.com/callback", ...bad].join("\n"));
    await settings.getByRole("button", { name: "Save changes" }).click();
    const uriProblems = page.locator("#edit-client-redirect-uris-error");
    await uriProblems.waitFor();
    for (const uri of bad) expect(await uriProblems.innerText()).toContain(uri);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("edit-client-redirect-uris");
    await settings.getByLabel("Redirect URIs").fill("https://robot.example.com/callback");
    await settings.getByLabel("Homepage URL").fill("https://robot.example.com");
    await settings.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Deploy Robot", level: 1 }).waitFor();
    await page.getByText("Saved Deploy Robot.").waitFor();
    expect(await page.getByRole("region", { name: "About Deploy Robot" }).innerText()).toContain("https://robot.example.com");

    // Secrets: the first one, used; a second one generated while the first keeps working; then the first deleted.
    const secrets = page.getByRole("region", { name: "Client secrets" });
    const first = secrets.getByRole("listitem", { name: `Secret ending in ${secret.slice(-4)}` });
    expect(await first.innerText()).toContain("Last used"); // by the introspection request above
    await secrets.getByRole("button", { name: "Generate a new client secret" }).click();
    const rotated = page.getByRole("region", { name: "New client secret for Deploy Robot" });
    await rotated.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-labelledby"))).toBe("secret-title");
    const newSecret = await rotated.getByLabel("Client secret").inputValue();
    expect(newSecret).not.toBe(secret);
    expect(await secretStatus(clientId!, secret)).toBe(200);
    expect(await secretStatus(clientId!, newSecret)).toBe(200);
    await rotated.getByRole("button", { name: "I have saved it" }).click();
    await rotated.waitFor({ state: "detached" });
    const second = secrets.getByRole("listitem", { name: `Secret ending in ${newSecret.slice(-4)}` });
    await second.waitFor();
    await page.reload();
    await expect.poll(() => second.innerText()).toContain("Last used");
    await first.getByRole("button", { name: /^Delete/ }).click();
    await confirm(page, `Delete the secret ending in ${secret.slice(-4)}?`, "Delete secret");
    await first.waitFor({ state: "detached" });
    expect(await secretStatus(clientId!, secret)).toBe(401);
    expect(await secretStatus(clientId!, newSecret)).toBe(200);

    // Delete: only once the app's name is typed.
    await page.getByRole("button", { name: "Delete Deploy Robot" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete Deploy Robot?" });
    const go = dialog.getByRole("button", { name: "Delete app" });
    expect(await go.isDisabled()).toBe(true);
    await dialog.getByLabel("Type Deploy Robot to confirm").fill("Deploy Robo");
    expect(await go.isDisabled()).toBe(true);
    await dialog.getByLabel("Type Deploy Robot to confirm").fill("Deploy Robot");
    await go.click();
    await page.waitForURL((url) => url.pathname === "/oauth-apps");
    await page.getByText("Deleted Deploy Robot.").waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("clients-title");
    expect(await secretStatus(clientId!, newSecret)).toBe(401);
    expect(await clients.getByRole("article", { name: "Deploy Robot" }).count()).toBe(0);

    // A public client gets no secret, and its page has no secrets section.
    await page.getByRole("button", { name: "Register an app" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Slipway CLI");
    await page.getByLabel("Public client (no secret; must use PKCE)").check();
    await page.getByRole("button", { name: "Register app" }).click();
    const cli = clients.getByRole("article", { name: "Slipway CLI" });
    await cli.waitFor();
    expect(await cli.innerText()).toContain("Public");
    expect(await page.getByRole("region", { name: /client secret/i }).count()).toBe(0);
    await cli.getByRole("link", { name: "Slipway CLI" }).click();
    await page.getByRole("heading", { name: "Slipway CLI", level: 1 }).waitFor();
    expect(await page.getByText("Public client: no secret, must use PKCE").count()).toBe(1);
    expect(await page.getByRole("region", { name: "Client secrets" }).count()).toBe(0);
  });

  it("shows on an app's page the authorization, token and discovery URLs the server announces, each to copy", async () => {
    const { user, client } = await userWithClient(server, { name: "Endpoint Bot" });
    const context = await contextAs(browser, server, user, { viewport: { width: 1200, height: 900 } });
    contexts.push(context);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const page = await context.newPage();
    await page.goto(`/oauth-apps/${client.clientId}`);
    const endpoints = page.getByRole("region", { name: "Endpoints" });
    await endpoints.waitFor();

    const metadata = (await new Client(server.url).get("/.well-known/oauth-authorization-server")).body;
    const expected = [
      ["Authorization endpoint", "authorization endpoint", metadata.authorization_endpoint, `${server.url}/oauth/authorize`],
      ["Token endpoint", "token endpoint", metadata.token_endpoint, `${server.url}/oauth/token`],
      ["Discovery document", "discovery document URL", `${metadata.issuer}/.well-known/oauth-authorization-server`, `${server.url}/.well-known/oauth-authorization-server`],
    ];
    expect(await endpoints.getByRole("term").allInnerTexts()).toEqual(expected.map(([label]) => label));
    for (const [, what, url, absolute] of expected) {
      expect(url).toBe(absolute);
      expect(await endpoints.getByText(url, { exact: true }).isVisible()).toBe(true);
      await endpoints.getByRole("button", { name: `Copy ${what}` }).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    }
    // The discovery document it names answers.
    expect((await fetch(expected[2][2])).status).toBe(200);
  });

  it("lists an app the user authorized and revokes it, after which its access token gets 401", async () => {
    const page = await openPage();
    await signUpAndOpen(page);
    const section = page.getByRole("region", { name: "Authorized apps" });
    await section.getByText("You have not authorized any apps.").waitFor();

    const { client } = await userWithClient(server, { name: "Gallery App", description: "Shows your deployments" });
    const tokens = await issueTokens(server, await sessionOf(page), client, "read:user read:apps");
    expect((await bearer(server, tokens.access_token).get("/oauth/userinfo")).status).toBe(200);

    await page.reload();
    const app = section.getByRole("article", { name: "Gallery App" });
    await app.waitFor();
    const text = await app.innerText();
    expect(text).toContain("Shows your deployments");
    expect(text).toContain("See your name, email address and account details");
    expect(text).toContain("See your apps, their deployments, logs and files");
    expect(text).toMatch(/Authorized .*\d{4}/);

    await app.getByRole("button", { name: "Revoke access for Gallery App" }).click();
    await confirm(page, "Revoke access for Gallery App?", "Revoke access");
    await app.waitFor({ state: "detached" });
    await section.getByText("You have not authorized any apps.").waitFor();
    expect((await bearer(server, tokens.access_token).get("/oauth/userinfo")).status).toBe(401);
  });
});
