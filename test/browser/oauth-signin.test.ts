// A visitor without a session who follows a third-party app to /oauth/authorize signs in through the
// dashboard and comes back to the consent page, then lands on the app with a code.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { registerClient, startOAuthServer } from "../oauth/helpers.ts";
import { launchChromium } from "../helpers/browser.ts";

let server: TestServer;
let browser: Browser;
let callback: http.Server;
let callbackUrl: string;

beforeAll(async () => {
  if (!fs.existsSync("web/build/index.html")) throw new Error("The dashboard is not built: run `npm run build:web` before the browser tests.");
  server = await startOAuthServer();
  callback = http.createServer((_request, response) => response.writeHead(200, { "content-type": "text/html" }).end("<h1>Back at the app</h1>"));
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/cb`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callback?.close(resolve));
  await server?.close();
});

describe("signing in on the way to consent", () => {
  it("sends the visitor to the dashboard's sign-in and back to the consent page, then to the app", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const app = await registerClient(owner, { name: "Photo Frame", redirectUris: [callbackUrl] });
    const visitor = new Client(server.url);
    const { email, password } = await visitor.signup();

    const context = await browser.newContext();
    const page = await context.newPage();
    const authorize = `${server.url}/oauth/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: callbackUrl, response_type: "code", scope: "read:user", state: "s1" })}`;
    const logged: string[] = [];
    page.on("console", (message) => logged.push(message.text()));
    await page.goto(authorize);
    await page.waitForURL((url) => url.pathname === "/login" && url.searchParams.get("next")?.startsWith("/oauth/authorize") === true);
    await page.getByRole("heading", { name: "Sign in to continue to Photo Frame", level: 1 }).waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: /sign in/i }).click();

    await page.waitForURL((url) => url.pathname === "/oauth/authorize");
    await expect.poll(() => page.title()).toContain("Authorize Photo Frame");
    // Loaded by the server, not tried in the dashboard's router first.
    expect(logged.filter((line) => /not found/i.test(line))).toEqual([]);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callbackUrl)), page.click('button[value="approve"]')]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get("state")).toBe("s1");
    expect(landed.searchParams.get("code")).toBeTruthy();
    await context.close();
  });

  it("'Not you?' on the consent page signs out, and signing in as someone else comes back to it", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const app = await registerClient(owner, { name: "Switcher", redirectUris: [callbackUrl] });
    const first = new Client(server.url);
    const firstAccount = await first.signup();
    const second = await new Client(server.url).signup();
    const context = await browser.newContext({ baseURL: server.url });
    const [name, value] = first.cookie!.split("=");
    await context.addCookies([{ name, value, url: server.url }]);
    const page = await context.newPage();
    const authorize = `/oauth/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: callbackUrl, response_type: "code", scope: "read:user", state: "s2" })}`;
    await page.goto(authorize);
    await page.getByText(`Signed in as ${firstAccount.name}`).waitFor();
    await page.getByRole("button", { name: "Sign out and use another account" }).click();
    await page.getByRole("heading", { name: "Sign in to continue to Switcher", level: 1 }).waitFor();
    expect((await first.get("/api/me")).status).toBe(401);
    await page.getByLabel("Email").fill(second.email);
    await page.getByLabel("Password").fill(second.password);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL((url) => url.pathname === "/oauth/authorize" && url.searchParams.get("state") === "s2");
    await page.getByText(`Signed in as ${second.name}`).waitFor();
    await context.close();
  });

  it("follows next only when it is a relative path on this site: anything else lands home (the apps page)", async () => {
    const client = new Client(server.url);
    const { email, password } = await client.signup();
    const hostile = [`${server.url}/cdn`, "//evil.example/x", "/\\evil.example/x", "https://evil.example/", "javascript:alert(1)"];
    for (const next of hostile) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/login?next=${encodeURIComponent(next)}`);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: /sign in/i }).click();
      await page.waitForURL((url) => url.pathname !== "/login");
      expect(new URL(page.url()).href, next).toBe(`${server.url}/apps`);
      await context.close();
    }
  });
});
