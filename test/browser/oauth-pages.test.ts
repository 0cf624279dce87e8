// The OAuth pages in a real browser (headless Chromium): the consent page of the authorization code flow
// (approve lands on the client's redirect URI with a code) and the device page (enter the code, approve,
// and the device's next poll gets tokens).
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { form, registerClient, startOAuthServer } from "../oauth/helpers.ts";
import { launchChromium } from "../helpers/browser.ts";

let server: TestServer;
let browser: Browser;
let callback: http.Server;
let callbackUrl: string;

beforeAll(async () => {
  server = await startOAuthServer();
  // The third-party app's redirect URI: a tiny server that just says it got the answer.
  callback = http.createServer((_request, response) => response.writeHead(200, { "content-type": "text/html" }).end("<h1>App got the answer</h1>"));
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callback?.close(resolve));
  await server?.close();
});

/** A browser signed in as a new user: the session cookie from the API goes into the browser's jar. */
async function signedInBrowser(): Promise<{ context: BrowserContext; api: Client }> {
  const api = new Client(server.url);
  await api.signup();
  const [name, value] = api.cookie!.split("=");
  const context = await browser.newContext();
  await context.addCookies([{ name, value, url: server.url, httpOnly: true, sameSite: "Lax" }]);
  return { context, api };
}

describe("OAuth pages in Chromium", () => {
  it("approving on the consent page lands on the redirect URI with a code that exchanges for tokens", async () => {
    const { context, api } = await signedInBrowser();
    const app = await registerClient(api, { name: "Gallery App", description: "Shows your deployments", redirectUris: [callbackUrl] });
    const page = await context.newPage();
    const authorizeUrl = `${server.url}/oauth/authorize?${new URLSearchParams({
      client_id: app.clientId, redirect_uri: callbackUrl, response_type: "code", scope: "read:user read:apps", state: "browser-state",
    })}`;
    await page.goto(authorizeUrl);
    await expect.poll(() => page.title()).toContain("Authorize Gallery App");
    expect(await page.textContent("main")).toContain("See your apps, their deployments, logs and files");

    await Promise.all([page.waitForURL((url) => url.href.startsWith(callbackUrl)), page.click('button[value="approve"]')]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get("state")).toBe("browser-state");
    expect(await page.textContent("h1")).toBe("App got the answer");
    const tokens = await form(new Client(server.url), "/oauth/token", {
      grant_type: "authorization_code", code: landed.searchParams.get("code")!, redirect_uri: callbackUrl,
      client_id: app.clientId, client_secret: app.clientSecret!,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe("read:user read:apps");
    await context.close();
  });

  it("entering the device code in lowercase without the dash and approving lets the device's poll succeed", async () => {
    const { context, api } = await signedInBrowser();
    const cli = await registerClient(api, { name: "Slipway CLI", public: true, redirectUris: [] });
    const device = await form(new Client(server.url), "/api/oauth/device", { client_id: cli.clientId, scope: "read:user" });
    expect(device.status).toBe(200);
    const page = await context.newPage();
    await page.goto(device.body.verification_uri);
    await page.fill("#user_code", device.body.user_code.toLowerCase().replace("-", ""));
    await Promise.all([page.waitForLoadState(), page.click("button.primary")]);
    await expect.poll(() => page.title()).toContain("Authorize Slipway CLI");
    expect(await page.textContent(".warning")).toContain("Never enter or approve a code that someone else sent you");

    await Promise.all([page.waitForURL(`${server.url}/oauth/device`), page.click('button[value="approve"]')]);
    await expect.poll(() => page.textContent("h1")).toBe("Device connected");
    // A way back to the dashboard, where the authorized app is listed.
    await page.getByRole("link", { name: "Back to Slipway" }).click();
    await page.waitForURL((url) => url.pathname === "/oauth-apps");
    await page.getByRole("region", { name: "Authorized apps" }).getByRole("article", { name: "Slipway CLI" }).waitFor();
    const poll = await form(new Client(server.url), "/oauth/token", {
      grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: device.body.device_code, client_id: cli.clientId,
    });
    expect(poll.status).toBe(200);
    expect(poll.body).toMatchObject({ token_type: "Bearer", scope: "read:user" });
    await context.close();
  });
});
