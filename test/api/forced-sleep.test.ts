// FORCED_SLEEP_AFTER_MINUTES: apps of accounts on the default limits sleep after at most that long idle. New apps
// start with it; a longer time or "never" is a 400 naming sleepAfterMinutes; once an administrator raised the
// account's limits it no longer applies; apps from before the rule are brought under it when the leader starts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admin, signedUp } from "../admin/helpers.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", FORCED_SLEEP_AFTER_MINUTES: "15" });
}, 60_000);
afterAll(() => server?.close());

describe("FORCED_SLEEP_AFTER_MINUTES", () => {
  it("gives new apps the rule's minutes and refuses longer or never, until an administrator raises the account's limits", async () => {
    const user = await signedUp(server);
    const slug = `forced-${process.pid}`;
    expect((await user.client.post("/api/apps", { slug })).body).toMatchObject({ slug, sleepAfterMinutes: 15 });
    for (const minutes of [30, null]) {
      const refused = await user.client.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: minutes } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.fields.sleepAfterMinutes).toMatch(/at most 15 minutes idle on this platform/);
    }
    expect((await user.client.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: 5 } })).body).toMatchObject({ sleepAfterMinutes: 5 });

    const boss = await admin(server);
    expect((await boss.client.request("PATCH", `/api/admin/users/${user.user.id}`, { json: { quota: { maxApps: 10 } } })).status).toBe(200);
    expect((await user.client.request("PATCH", `/api/apps/${slug}`, { json: { sleepAfterMinutes: null } })).body).toMatchObject({ sleepAfterMinutes: null });
  });

  it("brings apps from before the rule under it, not those of raised accounts", async () => {
    const [plain, raised] = await Promise.all([signedUp(server), signedUp(server)]);
    const boss = await admin(server);
    await boss.client.request("PATCH", `/api/admin/users/${raised.user.id}`, { json: { quota: { maxApps: 10 } } });
    const slugs = [`before-${process.pid}`, `raised-${process.pid}`];
    await plain.client.post("/api/apps", { slug: slugs[0] });
    await raised.client.post("/api/apps", { slug: slugs[1] });
    // As an app made before the operator set the rule would be.
    await server.slipway.platform.db.app.updateMany({ where: { slug: { in: slugs } }, data: { sleepAfterMinutes: null } });

    await server.slipway.platform.services.apps.enforceSleepRule();
    expect((await plain.client.get(`/api/apps/${slugs[0]}`)).body.sleepAfterMinutes).toBe(15);
    expect((await raised.client.get(`/api/apps/${slugs[1]}`)).body.sleepAfterMinutes).toBeNull();
  });
});
