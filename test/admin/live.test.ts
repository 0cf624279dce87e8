// What happens at once: a suspension ends the account's open WebSocket subscriptions and stops its running
// apps (reactivation leaves them stopped); a decided limit request reaches the requester over the viewer
// subscription; admin-only fields are refused in a subscription as in a query.
import path from "node:path";
import { createClient, type Client as WsClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { deploy, FIXTURES, waitFor, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { admin, signedUp } from "./helpers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
});
afterAll(() => server?.close());

function wsClient(cookie: string | undefined): WsClient {
  class WithCookie extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers: cookie ? { cookie } : {} });
    }
  }
  return createClient({ url: server.url.replace(/^http/, "ws") + "/graphql", webSocketImpl: WithCookie, retryAttempts: 0 });
}

/** Subscribes and records every payload, and whether (and how) the subscription ended. */
function watch(client: WsClient, query: string) {
  const state = { results: [] as any[], ended: false, error: null as unknown };
  client.subscribe({ query }, { next: (v) => void state.results.push(v), error: (e) => ((state.error = e), (state.ended = true)), complete: () => void (state.ended = true) });
  return state;
}

describe("live effects of admin actions", () => {
  it("suspending a user ends their open subscription at once and stops their running app; reactivating does not restart it", async () => {
    const boss = await admin(server);
    const owner = await signedUp(server);
    const slug = `live-${process.pid}`;
    expect((await owner.client.post("/api/apps", { slug })).status).toBe(201);
    const deployment = await deploy(owner.client, slug, await zipFolder(path.join(FIXTURES, "node-plain")));
    expect(deployment.status).toBe("LIVE");
    expect((await owner.client.get(`/api/apps/${slug}`)).body.status).toBe("RUNNING");

    const idle = `idle-${process.pid}`;
    expect((await owner.client.post("/api/apps", { slug: idle })).status).toBe(201);

    const ws = wsClient(owner.client.cookie);
    const sub = watch(ws, `subscription { app(slug: "${slug}") { status } }`);
    // A never-deployed app gets no event of its own from the suspension: only the account check ends it.
    const quiet = watch(ws, `subscription { app(slug: "${idle}") { status } }`);
    await waitFor(async () => sub.results.length >= 1 && quiet.results.length >= 1, 10_000, "the first app events");
    expect(sub.ended || quiet.ended).toBe(false);

    const res = await boss.client.request("PATCH", `/api/admin/users/${owner.user.id}`, { json: { status: "SUSPENDED" } });
    expect(res.status).toBe(200);
    await waitFor(async () => sub.ended, 5_000, "the subscription to end");
    expect(sub.results.at(-1).errors[0].extensions.code).toBe("account_suspended");
    await waitFor(async () => quiet.ended, 5_000, "the idle app's subscription to end");
    expect(quiet.results.map((r) => r.errors?.[0].extensions.code ?? r.data.app.status)).toEqual(["CREATED", "account_suspended"]);

    const app = await server.slipway.platform.db.app.findUniqueOrThrow({ where: { slug } });
    expect(app.status).toBe("STOPPED");
    expect((await server.slipway.platform.engine.runtime(app.id)).running).toBe(false);
    const [event] = (await boss.client.get(`/api/admin/audit?action=admin.user.suspend&target=${owner.user.id}`)).body;
    expect(JSON.parse(event.details).stoppedApps).toEqual([slug]);

    // A new subscription of the suspended account is refused.
    const again = watch(wsClient(owner.client.cookie), "subscription { viewer { user { status } } }");
    await waitFor(async () => again.ended, 5_000, "the refused subscription to end");
    expect(again.results[0].errors[0].extensions.code).toBe("account_suspended");

    await boss.client.request("PATCH", `/api/admin/users/${owner.user.id}`, { json: { status: "ACTIVE" } });
    expect((await owner.client.get(`/api/apps/${slug}`)).body.status).toBe("STOPPED");
    await ws.dispose();
  }, 120_000);

  it("the requester's viewer subscription shows the decision and the new limit as soon as it is made", async () => {
    const boss = await admin(server);
    const user = await signedUp(server);
    const { body: request } = await user.client.post("/api/quota/requests", { limits: { maxApps: 9 }, reason: "a workshop" });
    const ws = wsClient(user.client.cookie);
    const sub = watch(ws, "subscription { viewer { quota { maxApps } user { quotaRequests(first: 5) { id status } } } }");
    await waitFor(async () => sub.results.length >= 1, 10_000, "the first viewer event");
    expect(sub.results[0].data.viewer).toEqual({ quota: { maxApps: 5 }, user: { quotaRequests: [{ id: request.id, status: "PENDING" }] } });
    await boss.client.post(`/api/admin/quota-requests/${request.id}`, { decision: "approve" });
    const pushed = await waitFor(async () => sub.results.find((r) => r.data?.viewer.quota.maxApps === 9), 5_000, "the decision to arrive");
    expect(pushed.data.viewer.user.quotaRequests[0]).toEqual({ id: request.id, status: "APPROVED" });
    await ws.dispose();
  });

  it("a non-admin's subscription cannot read another account's quota requests or quota", async () => {
    const user = await signedUp(server);
    const ws = wsClient(user.client.cookie);
    const sub = watch(ws, "subscription { viewer { user { name } } }");
    await waitFor(async () => sub.results.length >= 1, 10_000, "the first viewer event");
    const other = await signedUp(server);
    const { body } = await other.client.post("/api/quota/requests", { limits: { maxApps: 9 }, reason: "a workshop" });
    const res = await user.client.graphql(`{ adminQuotaRequests(first: 5) { id } }`);
    expect(res.body.errors?.[0].extensions?.code).toBe("forbidden");
    expect(JSON.stringify(res.body)).not.toContain(body.id);
    const anonymous = watch(wsClient(undefined), "subscription { viewer { quota { maxApps } } }");
    await waitFor(async () => anonymous.ended, 5_000, "the anonymous subscription to end");
    expect(anonymous.results[0].errors[0].extensions.code).toBe("unauthenticated");
    await ws.dispose();
  });
});
