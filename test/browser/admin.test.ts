// The admin console in a real browser: an administrator approves a limit request and the user, whose account
// page is open, sees the new limit; an administrator approves a pending account. Needs `npm run build:web`.
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const BUILT_INDEX = fileURLToPath(new URL("../../web/build/index.html", import.meta.url));
if (!fs.existsSync(BUILT_INDEX)) {
  throw new Error(`The dashboard is not built (${BUILT_INDEX} is missing). Run \`npm run build:web\` before the browser tests.`);
}

let browser: Browser;
const contexts: BrowserContext[] = [];
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

/** A page signed in as the client's account (its session cookie). */
async function pageAs(server: TestServer, client: Client): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const [name, value] = client.cookie!.split("=");
  await context.addCookies([{ name, value, url: server.url }]);
  return context.newPage();
}

async function accounts(server: TestServer) {
  const boss = new Client(server.url);
  const bossAccount = await boss.signup();
  await server.slipway.platform.services.accounts.setRole(bossAccount.email, "ADMIN");
  const user = new Client(server.url);
  const userAccount = await user.signup();
  return { boss, user, userAccount };
}

describe("admin console", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  });
  afterAll(() => server?.close());

  it("an admin approves a limit request and the user sees the new limit", async () => {
    const { boss, user, userAccount } = await accounts(server);

    const userPage = await pageAs(server, user);
    await userPage.goto("/account");
    await userPage.getByRole("button", { name: "Request more" }).click();
    const apps = userPage.getByLabel("Apps", { exact: true });
    expect(await apps.inputValue()).toBe("5"); // prefilled with the current limit
    await apps.fill("9");
    await userPage.getByLabel("Why you need them").fill("A workshop with nine demos");
    await userPage.getByRole("button", { name: "Send request" }).click();
    await userPage.getByTestId("quota-request").getByText("Waiting").waitFor();
    await userPage.getByText("0 of 5 used").first().waitFor();

    const adminPage = await pageAs(server, boss);
    await adminPage.goto("/account");
    await adminPage.getByRole("link", { name: "Admin" }).click();
    await adminPage.waitForURL("**/admin");
    const request = adminPage.getByTestId("limit-request").filter({ hasText: userAccount.name });
    await request.getByText("A workshop with nine demos").waitFor();
    await request.getByRole("button", { name: "Approve as asked" }).click();
    await request.waitFor({ state: "detached" });

    // The user's open page hears of it through the viewer subscription: no reload.
    await userPage.getByTestId("quota-request").getByText("Approved").waitFor();
    await userPage.getByText("0 of 9 used").first().waitFor();
    expect((await user.get("/api/me")).body.quota.maxApps).toBe(9);
    // The audit log on the admin page shows the decision.
    await adminPage.getByTestId("audit-row").filter({ hasText: "admin.quota_request.approve" }).first().waitFor();
    // And the isolation the runtime enforces around every app, as an app's Settings tab shows it.
    await adminPage.getByRole("region", { name: "Isolation" }).getByText(/Runtime driver/).waitFor();
    // And the cluster: this lone instance leads.
    const cluster = adminPage.getByRole("region", { name: "Cluster" });
    const leader = server.slipway.platform.cluster?.leading ? (await server.slipway.platform.services.cluster.view()).leader : null;
    expect(leader).not.toBeNull();
    await cluster.getByTestId("cluster-leader").getByText(leader!).waitFor();
    await cluster.getByTestId("cluster-instance").filter({ hasText: leader! }).getByText("leader").waitFor();
  });

  it("the Admin section is not offered to a user, and its page refuses them", async () => {
    const { user } = await accounts(server);
    const page = await pageAs(server, user);
    await page.goto("/account");
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await page.getByRole("link", { name: "Admin" }).count()).toBe(0);
    await page.goto("/admin");
    await page.getByText("Only administrators can open the admin area.").waitFor();
  });
});

describe("a user's limit requests, a page at a time", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  });
  afterAll(() => server?.close());

  it("a user's own limit requests: Load more appends the older ones; a new request starts the list again from the top", async () => {
    const { user, userAccount } = await accounts(server);
    // 11 decided requests, a minute apart, oldest first.
    const start = Date.now() - 60 * 60_000;
    await server.slipway.platform.db.quotaRequest.createMany({
      data: Array.from({ length: 11 }, (_, i) => ({
        userId: userAccount.user.id,
        maxApps: 10 + i,
        reason: `Request ${i}`,
        status: "DENIED" as const,
        decisionReason: `No ${i}`,
        createdAt: new Date(start + i * 60_000),
        decidedAt: new Date(start + i * 60_000 + 1000),
      })),
    });
    const oldest = await server.slipway.platform.db.quotaRequest.findFirstOrThrow({ where: { userId: userAccount.user.id, reason: "Request 0" } });

    const page = await pageAs(server, user);
    await page.goto("/account");
    const requests = page.getByTestId("quota-request");
    const more = page.getByRole("button", { name: "Load 10 more requests" });
    await more.waitFor();
    expect(await requests.count()).toBe(10);
    expect(await page.getByText("Reason: No 0", { exact: true }).count()).toBe(0);

    await more.click();
    await more.waitFor({ state: "detached" });
    expect(await requests.count()).toBe(11);
    expect(await requests.last().innerText()).toContain("Reason: No 0");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`quota-request-${oldest.id}`);

    // The viewer subscription brings the new request: the list is its first page again, the new one on top.
    await page.getByRole("button", { name: "Request more" }).click();
    await page.getByLabel("Apps", { exact: true }).fill("30");
    await page.getByLabel("Why you need them").fill("One more");
    await page.getByRole("button", { name: "Send request" }).click();
    await requests.first().getByText("Waiting").waitFor();
    await more.waitFor();
    expect(await requests.count()).toBe(10);
  });

});

// Its own server: the count of pending requests is the test's.
describe("the admin's limit requests, a page at a time", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  });
  afterAll(() => server?.close());

  it("pending limit requests, oldest first: Load more appends the newer ones; a decision reloads the first page", async () => {
    const { boss } = await accounts(server);
    const ids: string[] = [];
    for (let i = 0; i < 41; i++) {
      const asker = new Client(server.url);
      await asker.signup();
      const res = await asker.post("/api/quota/requests", { limits: { maxApps: 6 }, reason: `Demo ${i}` });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const page = await pageAs(server, boss);
    await page.goto("/admin");
    const requests = page.getByTestId("limit-request");
    const more = page.getByRole("button", { name: "Load 40 more requests" });
    await more.waitFor();
    expect(await requests.evaluateAll((lis) => lis.map((li) => li.id))).toEqual(ids.slice(0, 40).map((id) => `limit-request-${id}`));

    await more.click();
    await more.waitFor({ state: "detached" });
    expect(await requests.count()).toBe(41);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`limit-request-${ids[40]}`);

    // Approving the newest (on the second page) reloads the first page: 40, a whole page, so the button is back;
    // the next page is empty, the button goes and the focus stays in the list, on its last request.
    await requests.last().getByRole("button", { name: "Approve as asked" }).click();
    await more.waitFor();
    expect(await requests.count()).toBe(40);
    await more.click();
    await more.waitFor({ state: "detached" });
    expect(await requests.count()).toBe(40);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`limit-request-${ids[39]}`);
  });
});

describe("approvals", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ REQUIRE_APPROVAL: "true", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  });
  afterAll(() => server?.close());

  it("an admin approves a pending account; the user can then work", async () => {
    const { boss, user, userAccount } = await accounts(server);
    expect(userAccount.user.status).toBe("PENDING");
    const userPage = await pageAs(server, user);
    await userPage.goto("/account");
    await userPage.getByText("Your account is waiting for approval.").waitFor();
    await userPage.locator(".status.pending", { hasText: "Waiting for approval" }).waitFor();

    const adminPage = await pageAs(server, boss);
    await adminPage.goto("/admin");
    await adminPage.getByRole("button", { name: `Approve ${userAccount.name}` }).click();
    await adminPage.getByRole("button", { name: `Approve ${userAccount.name}` }).waitFor({ state: "detached" });
    expect((await boss.get(`/api/admin/users?q=${userAccount.name}`)).body[0].status).toBe("ACTIVE");

    // The open account page shows the new status live (its viewer subscription); the shell's banner goes on the next load.
    await userPage.locator(".status.active", { hasText: "Active" }).waitFor();
    await userPage.reload();
    await userPage.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await userPage.getByText("Your account is waiting for approval.").count()).toBe(0);
    await userPage.getByRole("button", { name: "Request more" }).waitFor();
  });
});
