// A quota raise applies on the very next request, on every instance: an approval made through one instance
// moves the 429 limit that another instance (which had the old limit cached) enforces.
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { waitFor } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { REDIS_URL, startServer, type TestServer } from "../helpers/server.ts";
import { admin, signedUp } from "./helpers.ts";

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  const prefix = `slipway-test-${process.pid}-${Date.now()}:`;
  a = await startServer({ REDIS_URL, REDIS_KEY_PREFIX: prefix, DEFAULT_REQUESTS_PER_MINUTE: "6" });
  b = await startServer({ REDIS_URL, REDIS_KEY_PREFIX: prefix, DEFAULT_REQUESTS_PER_MINUTE: "6", DATABASE_URL: a.config.databaseUrl });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe("a quota raise across two instances sharing Redis", () => {
  it("an approval on A lifts the user's 429 limit on B at the next request", async () => {
    const boss = await admin(a);
    await a.slipway.platform.db.quota.update({ where: { userId: boss.user.id }, data: { requestsPerMinute: 1000 } });
    const user = await signedUp(a); // counted against the address: the account was not signed in yet
    const onB = new Client(b.url);
    onB.cookie = user.client.cookie;
    const filed = await user.client.post("/api/quota/requests", { limits: { requestsPerMinute: 20 }, reason: "a load test" }); // 1
    expect(filed.status).toBe(201);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await onB.get("/api/me")); // 2..6, then refused: B caches the limit of 6
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers[5].headers.get("ratelimit-limit")).toBe("6");

    const approved = await boss.client.post(`/api/admin/quota-requests/${filed.body.id}`, { decision: "approve" });
    expect(approved.status).toBe(200);
    const next = await onB.get("/api/me");
    expect(next.status).toBe(200);
    expect(next.headers.get("ratelimit-limit")).toBe("20");
    expect(next.body.quota.requestsPerMinute).toBe(20);
    const more = [];
    for (let i = 0; i < 20; i++) more.push((await onB.get("/api/me")).status);
    // 6 counted before the approval (the refused one is not), then `next`: 13 more fit in the window of 20.
    expect(more.filter((s) => s === 200)).toHaveLength(13);
    expect(more.at(-1)).toBe(429);
  });
});

describe("a suspension across two instances sharing Redis", () => {
  it("made through A, it ends the user's open subscription on B at once", async () => {
    const boss = await admin(a);
    const user = await signedUp(a);
    const cookie = user.client.cookie!;
    const slug = `inst-${process.pid}`;
    expect((await user.client.post("/api/apps", { slug })).status).toBe(201);
    class WithCookie extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { cookie } });
      }
    }
    const ws = createClient({ url: b.url.replace(/^http/, "ws") + "/graphql", webSocketImpl: WithCookie, retryAttempts: 0 });
    const results: any[] = [];
    let ended = false;
    // A never-deployed app's subscription gets no event of its own from a suspension: only the account check ends it.
    ws.subscribe({ query: `subscription { app(slug: "${slug}") { status } }` }, { next: (v) => void results.push(v), error: () => (ended = true), complete: () => (ended = true) });
    await waitFor(async () => results.length >= 1, 10_000, "the first app event");
    expect(results[0].data.app.status).toBe("CREATED");
    expect((await boss.client.request("PATCH", `/api/admin/users/${user.user.id}`, { json: { status: "SUSPENDED" } })).status).toBe(200);
    await waitFor(async () => ended, 5_000, "the subscription on B to end");
    expect(results.at(-1).errors[0].extensions.code).toBe("account_suspended");
    await ws.dispose();
  });
});
