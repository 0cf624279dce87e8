// Every page of the dashboard with something on it, for the tests that look at them all (phone widths,
// accessibility): an account with a running app (every tab of its page: a deployment, an instance, a run, variables
// with a long and an empty value), a CDN file, an OAuth client and an authorized app, more limit requests
// than a page shows (the list ends with "Load more"), an administrator, and the address and heading of each page
// as a visitor, the user or the administrator sees it. No database: the account page keeps an empty quota bar.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { deploy, zipFolder } from "./apps.ts";
import { Client, uniqueName } from "./client.ts";
import type { TestServer } from "./server.ts";

export interface DashboardPage {
  name: string;
  path: string;
  as: "visitor" | "user" | "admin";
  /** The page's main heading, shown once its data is there. */
  heading: string | RegExp;
  /** A page the server renders (OAuth consent and device): no dashboard header, no menu. */
  server?: boolean;
}

export interface Seeded {
  user: Client;
  admin: Client;
  appSlug: string;
  pages: DashboardPage[];
}

async function ok(what: string, answer: Promise<{ status: number; body: unknown }>, status = 201) {
  const res = await answer;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, any>;
}

export async function seedDashboard(server: TestServer): Promise<Seeded> {
  const user = new Client(server.url);
  const account = await user.signup();
  const appSlug = `phone${uniqueName("").replace(/[^a-z0-9]/g, "").slice(-20)}`;
  await ok("create app", user.post("/api/apps", { slug: appSlug, description: "A demo app with a long description to wrap" }));
  const secret = "s3cr3t-".repeat(12);
  await ok("set env", user.post(`/api/apps/${appSlug}/env`, { API_TOKEN_WITH_A_RATHER_LONG_NAME: secret, GREETING: "hello", EMPTY: "" }), 200);
  const source = `require("http").createServer((q, s) => { console.log("GET " + q.url + " from a client with a rather long user agent string"); s.end("hi"); }).listen(process.env.PORT);`;
  await deploy(user, appSlug, await zipFolder(null, { "package.json": JSON.stringify({ name: "demo" }), "server.js": source }));
  // A one-off run with a long command, for the Runs tab (it ends on its own; its output shows either way).
  await ok("start a run", user.post(`/api/apps/${appSlug}/runs`, { command: "echo a one-off run with a rather long command line to wrap on a phone; exit 1" }), 202);
  // One more than a page of limit requests.
  await server.slipway.platform.db.quotaRequest.createMany({
    data: Array.from({ length: 11 }, (_, i) => ({ userId: account.user.id, maxApps: 10 + i, reason: "A workshop", status: "DENIED" as const, decisionReason: "Not now" })),
  });
  const redirectUri = "https://client.example.com/a/very/long/callback/path/for/the/client";
  const oauthClient = await ok(
    "create OAuth client",
    user.post("/api/oauth/clients", { name: "A client with a rather long name", homepageUrl: "https://client.example.com/about", redirectUris: [redirectUri] }),
  );
  const consent = `/oauth/authorize?${new URLSearchParams({ client_id: oauthClient.clientId, redirect_uri: redirectUri, response_type: "code", scope: "read:user read:apps", state: "s" })}`;
  const form = new FormData();
  form.append("file", new Blob(["hello"], { type: "text/plain" }), "a-file-with-a-long-name-for-the-table.txt");
  await ok("upload CDN file", user.request("POST", "/api/cdn", { body: form }));

  const admin = new Client(server.url);
  const adminAccount = await admin.signup();
  await server.slipway.platform.services.accounts.setRole(adminAccount.email, "ADMIN");

  const pages: DashboardPage[] = [
    { name: "login", path: "/login", as: "visitor", heading: "Sign in" },
    { name: "signup", path: "/signup", as: "visitor", heading: /Create (your|an) account/ },
    { name: "forgot-password", path: "/forgot-password", as: "visitor", heading: /password/i },
    { name: "apps", path: "/apps", as: "user", heading: "Apps" },
    { name: "app", path: `/apps/${appSlug}`, as: "user", heading: appSlug },
    ...["deploys", "logs", "runs", "environment", "resources", "domains", "settings"].map((tab) => ({ name: `app-${tab}`, path: `/apps/${appSlug}/${tab}`, as: "user" as const, heading: appSlug })),
    { name: "oauth-apps", path: "/oauth-apps", as: "user", heading: "OAuth apps" },
    { name: "oauth-app", path: `/oauth-apps/${oauthClient.clientId}`, as: "user", heading: "A client with a rather long name" },
    { name: "oauth-consent", path: consent, as: "user", heading: "Authorize A client with a rather long name", server: true },
    { name: "oauth-device", path: "/oauth/device?user_code=BCDF-GHJK", as: "user", heading: "Connect a device", server: true },
    { name: "account", path: "/account", as: "user", heading: "Your account" },
    { name: "cdn", path: "/cdn", as: "user", heading: "CDN" },
    { name: "admin", path: "/admin", as: "admin", heading: /Admin/ },
  ];
  return { user, admin, appSlug, pages };
}

/** A browser context signed in as `client` (none for a visitor). */
export async function contextAs(browser: Browser, server: TestServer, client: Client | null, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: server.url, ...options });
  if (client?.cookie) {
    const [name, value] = client.cookie.split("=");
    await context.addCookies([{ name, value, url: server.url }]);
  }
  return context;
}

export function clientFor(seed: Seeded, page: DashboardPage): Client | null {
  return page.as === "visitor" ? null : page.as === "admin" ? seed.admin : seed.user;
}

/** Opens the page and waits for its main heading. */
export async function openDashboardPage(page: Page, target: DashboardPage): Promise<void> {
  const failures: string[] = [];
  page.on("pageerror", (error) => failures.push(String(error)));
  page.on("console", (message) => void (message.type() === "error" && failures.push(message.text())));
  await page.goto(target.path);
  try {
    await page.getByRole("heading", { level: 1, name: target.heading }).first().waitFor();
    // And styled: the stylesheet gives the page its background (on a loaded machine it can trail the heading).
    await page.waitForFunction(() => getComputedStyle(document.body).backgroundColor !== "rgba(0, 0, 0, 0)");
  } catch (error) {
    const body = await page.evaluate(() => document.body.innerHTML.replace(/<!---->/g, "").slice(0, 1500)).catch(() => "");
    throw new Error(`${target.path} showed no heading ${target.heading} (at ${page.url()}): ${body} ${failures.join("; ").slice(0, 600)}`, { cause: error });
  }
}
