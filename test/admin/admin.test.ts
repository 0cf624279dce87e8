// The admin console's REST routes (each runs the GraphQL operation of the same name): limit requests, stats,
// users, approvals, and the audit log that records every admin action.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { admin, signedUp, withStatus } from "./helpers.ts";

let server: TestServer;
let boss: Awaited<ReturnType<typeof admin>>;
beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  boss = await admin(server);
});
afterAll(() => server?.close());

async function audit(query: string) {
  const res = await boss.client.get(`/api/admin/audit?${query}`);
  expect(res.status).toBe(200);
  return res.body as { action: string; actorId: string; actorName: string; targetId: string; details: string; ip: string; createdAt: string; id: string }[];
}

describe("limit requests", () => {
  it("refuses invalid requests with the field to fix", async () => {
    const { client } = await signedUp(server);
    const bad = async (body: unknown) => {
      const res = await client.post("/api/quota/requests", body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      return res.body.error;
    };
    expect((await bad({ limits: { maxApps: 9 } })).details.fields).toHaveProperty("reason");
    expect((await bad({ limits: { maxApps: 9 }, reason: "   " })).details.fields).toHaveProperty("reason");
    expect((await bad({ limits: { maxApps: 0 }, reason: "more" })).details.fields).toHaveProperty(["limits.maxApps"]);
    expect((await bad({ limits: { maxApps: 100_000 }, reason: "more" })).details.fields).toHaveProperty(["limits.maxApps"]);
    expect((await bad({ limits: { cdnBytes: -1 }, reason: "more" })).code).toBe("invalid_request");
    expect((await bad({ limits: { cdnBytes: 2 ** 52 }, reason: "more" })).details.fields).toHaveProperty(["limits.cdnBytes"]);
    expect((await bad({ limits: {}, reason: "more" })).details.fields).toHaveProperty("limits");
    expect((await bad({ limits: { maxApps: 5, maxDatabases: 1 }, reason: "same as now" })).message).toMatch(/above your current/);
    expect((await bad({ limits: { maxApps: "lots" }, reason: "more" })).code).toBe("invalid_request");
    expect((await client.get("/api/quota/requests")).body).toEqual([]);
  });

  it("one pending request at a time; approval with adjusted limits raises the quota; the user sees the decision", async () => {
    const { client, user } = await signedUp(server);
    const created = await client.post("/api/quota/requests", { limits: { maxApps: 20, requestsPerMinute: 600 }, reason: "a class of students" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "PENDING", reason: "a class of students", decidedAt: null, limits: { maxApps: 20, requestsPerMinute: 600, maxDatabases: null } });
    const again = await client.post("/api/quota/requests", { limits: { maxApps: 30 }, reason: "more" });
    expect([again.status, again.body.error.code]).toEqual([409, "conflict"]);

    const listed = await boss.client.get("/api/admin/quota-requests?status=PENDING");
    const mine = listed.body.find((r: { id: string }) => r.id === created.body.id);
    expect(mine.user).toMatchObject({ id: user.id, name: user.name });
    expect((await boss.client.get("/api/admin/quota-requests?status=BOGUS")).status).toBe(400);

    const bad = await boss.client.post(`/api/admin/quota-requests/${created.body.id}`, { decision: "approve", limits: { maxApps: -3 } });
    expect(bad.status).toBe(400);
    const approved = await boss.client.post(`/api/admin/quota-requests/${created.body.id}`, { decision: "approve", limits: { maxApps: 12 } });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: "APPROVED", limits: { maxApps: 12, requestsPerMinute: 600 } });
    expect(approved.body.decidedAt).toBeTruthy();
    const me = (await client.get("/api/me")).body;
    expect(me.quota).toMatchObject({ maxApps: 12, requestsPerMinute: 600, maxDatabases: 3 });
    expect((await client.get("/api/quota/requests")).body[0]).toMatchObject({ id: created.body.id, status: "APPROVED" });
    const twice = await boss.client.post(`/api/admin/quota-requests/${created.body.id}`, { decision: "deny", reason: "changed my mind" });
    expect(twice.status).toBe(409);
    expect((await boss.client.post("/api/admin/quota-requests/nope", { decision: "approve" })).status).toBe(404);

    const events = await audit(`action=admin.quota_request.approve&target=${user.id}`);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].details)).toMatchObject({ request: created.body.id, granted: { maxApps: 12, requestsPerMinute: 600 }, requested: { maxApps: 20 } });
    expect(events[0]).toMatchObject({ actorId: boss.user.id, actorName: boss.user.name });
    expect(events[0].ip).toBeTruthy();
  });

  it("of requests sent together, exactly one is filed; the others get 409", async () => {
    const { client } = await signedUp(server);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => client.post("/api/quota/requests", { limits: { maxApps: 10 + i }, reason: "all at once" })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect((await client.get("/api/quota/requests")).body).toHaveLength(1);
  });

  it("a denial needs a reason, which the user reads; then they may ask again", async () => {
    const { client, user } = await signedUp(server);
    const { body } = await client.post("/api/quota/requests", { limits: { maxDatabases: 10 }, reason: "data science" });
    const noReason = await boss.client.post(`/api/admin/quota-requests/${body.id}`, { decision: "deny" });
    expect([noReason.status, Object.keys(noReason.body.error.details.fields)]).toEqual([400, ["reason"]]);
    expect((await boss.client.post(`/api/admin/quota-requests/${body.id}`, { decision: "maybe" })).status).toBe(400);
    const denied = await boss.client.post(`/api/admin/quota-requests/${body.id}`, { decision: "deny", reason: "Use SQLite files instead." });
    expect(denied.body).toMatchObject({ status: "DENIED", decisionReason: "Use SQLite files instead." });
    expect((await client.get("/api/me")).body.quota.maxDatabases).toBe(3);
    expect((await client.get("/api/quota/requests")).body[0]).toMatchObject({ status: "DENIED", decisionReason: "Use SQLite files instead." });
    expect((await client.post("/api/quota/requests", { limits: { maxDatabases: 5 }, reason: "fewer then" })).status).toBe(201);
    const [event] = await audit(`action=admin.quota_request.deny&target=${user.id}`);
    expect(JSON.parse(event.details)).toMatchObject({ request: body.id, reason: "Use SQLite files instead." });
  });
});

describe("stats", () => {
  it("answers exactly the contract's body", async () => {
    const res = await boss.client.get("/api/admin/stats");
    expect(res.status).toBe(200);
    const s = res.body;
    expect(Object.keys(s).sort()).toEqual(["apps", "cdn", "databases", "deployments", "oauth", "quotaRequests", "users"]);
    expect(Object.keys(s.users).sort()).toEqual(["active", "pending", "suspended", "total"]);
    expect(s.users.total).toBe(s.users.active + s.users.pending + s.users.suspended);
    expect(s.users.total).toBe(await server.slipway.platform.db.user.count());
    expect(Object.keys(s.apps).sort()).toEqual(["byStatus", "total"]);
    expect(Object.keys(s.apps.byStatus).sort()).toEqual(["CRASHED", "CREATED", "DEPLOYING", "FAILED", "RUNNING", "SLEEPING", "STOPPED"]);
    expect(Object.keys(s.deployments).sort()).toEqual(["failedLast24h", "last24h", "total"]);
    expect(typeof s.databases).toBe("number");
    expect(Object.keys(s.cdn).sort()).toEqual(["bytes", "files"]);
    expect(Object.keys(s.oauth).sort()).toEqual(["activeTokens", "clients"]);
    expect(s.quotaRequests).toEqual({ pending: await server.slipway.platform.db.quotaRequest.count({ where: { status: "PENDING" } }) });
  });

  it("counts what exists: an app created shows under CREATED; the chart series cover 30 days", async () => {
    const before = (await boss.client.get("/api/admin/stats")).body;
    const { client } = await signedUp(server);
    expect((await client.post("/api/apps", { slug: `stats-${process.pid}` })).status).toBe(201);
    const after = (await boss.client.get("/api/admin/stats")).body;
    expect(after.apps.total).toBe(before.apps.total + 1);
    expect(after.apps.byStatus.CREATED).toBe(before.apps.byStatus.CREATED + 1);
    expect(after.users.active).toBe(before.users.active + 1);
    const series = await boss.client.graphql("{ adminStats { deploymentsByDay { day total failed } topStorage { name bytes } } }");
    expect(series.body.data.adminStats.deploymentsByDay).toHaveLength(30);
    const bad = await boss.client.graphql("{ adminStats { deploymentsByDay(days: 0) { day } } }");
    expect(bad.body.errors?.[0].extensions?.code).toBe("invalid_request");
  });
});

describe("users", () => {
  it("searches by email or name, filters by status and role, and pages through thousands", async () => {
    const { db } = server.slipway.platform;
    const tag = `bulk${process.pid}x`;
    await db.user.createMany({
      data: Array.from({ length: 2100 }, (_, i) => ({
        name: `${tag}-${i}`,
        email: `${tag}-${i}@bulk.example`,
        passwordHash: "x",
        status: i % 7 === 0 ? ("SUSPENDED" as const) : ("ACTIVE" as const),
      })),
    });
    const first = await boss.client.get(`/api/admin/users?q=${tag.toUpperCase()}`);
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(40); // REST answers one bounded page
    expect(first.body[0].quota).toMatchObject({ maxApps: 5 });
    const seen = new Set<string>();
    let after: string | undefined;
    for (let page = 0; page < 30; page++) {
      const res = await boss.client.graphql<{ adminUsers: { id: string; name: string }[] }>(
        `query($after: String) { adminUsers(q: "${tag}", status: SUSPENDED, first: 100, after: $after) { id name status } }`,
        { after },
      );
      const users = res.body.data!.adminUsers;
      for (const u of users) seen.add(u.id);
      if (users.length < 100) break;
      after = users.at(-1)!.id;
    }
    expect(seen.size).toBe(Math.ceil(2100 / 7));
    const byEmail = await boss.client.get(`/api/admin/users?q=${tag}-1999@bulk`);
    expect(byEmail.body.map((u: { name: string }) => u.name)).toEqual([`${tag}-1999`]);
    const admins = await boss.client.get("/api/admin/users?role=ADMIN");
    expect(admins.body.every((u: { role: string }) => u.role === "ADMIN")).toBe(true);
    expect(admins.body.some((u: { id: string }) => u.id === boss.user.id)).toBe(true);
    expect((await boss.client.graphql(`{ adminUsers(first: 101) { id } }`)).body.errors?.[0].extensions?.code).toBe("invalid_request");
    expect((await boss.client.get("/api/admin/users?status=LOST")).status).toBe(400);
  });

  it("changes role, status and quota (each audited); refuses bad input and unknown ids", async () => {
    const target = await signedUp(server);
    const path = `/api/admin/users/${target.user.id}`;
    expect((await boss.client.request("PATCH", path, { json: {} })).status).toBe(400);
    expect((await boss.client.request("PATCH", path, { json: { role: "ROOT" } })).status).toBe(400);
    expect((await boss.client.request("PATCH", path, { json: { quota: { maxApps: 0 } } })).status).toBe(400);
    expect((await boss.client.request("PATCH", "/api/admin/users/nobody", { json: { role: "ADMIN" } })).status).toBe(404);

    const res = await boss.client.request("PATCH", path, { json: { role: "ADMIN", quota: { maxApps: 8, cdnBytes: 5_000_000 } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: target.user.id, role: "ADMIN", status: "ACTIVE" });
    expect((await target.client.get("/api/me")).body.quota).toMatchObject({ maxApps: 8, cdnBytes: 5_000_000 });
    expect((await target.client.get("/api/admin/stats")).status).toBe(200); // the new role applies at once

    const suspended = await boss.client.request("PATCH", path, { json: { status: "SUSPENDED" } });
    expect(suspended.body.status).toBe("SUSPENDED");
    expect((await target.client.get("/api/me")).body.error.code).toBe("account_suspended");
    const active = await boss.client.request("PATCH", path, { json: { status: "ACTIVE", role: "USER" } });
    expect(active.body).toMatchObject({ status: "ACTIVE", role: "USER" });
    expect((await target.client.get("/api/me")).status).toBe(200);

    const actions = (await audit(`target=${target.user.id}&actor=${boss.user.name}`)).map((e) => e.action);
    // Newest first; the entries of one request share their timestamp, so compare those as sets.
    expect(actions.slice(0, 2).sort()).toEqual(["admin.user.activate", "admin.user.role"]);
    expect(actions[2]).toBe("admin.user.suspend");
    expect(actions.slice(3).sort()).toEqual(["admin.user.quota", "admin.user.role"]);
    const [demotion] = await audit(`target=${target.user.id}&action=admin.user.role`);
    expect(JSON.parse(demotion.details)).toMatchObject({ from: "ADMIN", to: "USER" });
  });

  it("the last administrator cannot demote or suspend themself; with another admin they can", async () => {
    const { db } = server.slipway.platform;
    // Only `boss` is an active administrator here.
    await db.user.updateMany({ where: { role: "ADMIN", id: { not: boss.user.id } }, data: { role: "USER" } });
    const self = `/api/admin/users/${boss.user.id}`;
    const demote = await boss.client.request("PATCH", self, { json: { role: "USER" } });
    expect([demote.status, demote.body.error.code]).toEqual([409, "conflict"]);
    expect(demote.body.error.message).toMatch(/last administrator/);
    expect((await boss.client.request("PATCH", self, { json: { status: "SUSPENDED" } })).status).toBe(409);
    expect((await boss.client.get("/api/admin/stats")).status).toBe(200);
    const second = await admin(server);
    const stepDown = await second.client.request("PATCH", `/api/admin/users/${second.user.id}`, { json: { role: "USER" } });
    expect([stepDown.status, stepDown.body.role]).toEqual([200, "USER"]);
    expect((await second.client.get("/api/admin/stats")).status).toBe(403);
  });

  it("two last administrators stepping down at the same moment: one succeeds, the other is refused", async () => {
    const { db } = server.slipway.platform;
    const [a, b] = [await admin(server), await admin(server)];
    // Only `a` and `b` are active administrators here; both step down at once.
    await db.user.updateMany({ where: { role: "ADMIN", id: { notIn: [a.user.id, b.user.id] } }, data: { role: "USER" } });
    const results = await Promise.all(
      [a, b].map((x) => x.client.request("PATCH", `/api/admin/users/${x.user.id}`, { json: { role: "USER" } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await db.user.count({ where: { role: "ADMIN", status: "ACTIVE" } })).toBe(1);
    await db.user.update({ where: { id: boss.user.id }, data: { role: "ADMIN" } });
  });

  it("limits changed by several administrators at the same moment all succeed (no administrator can be lost by them)", async () => {
    const target = await signedUp(server);
    const others = [await admin(server), await admin(server), await admin(server)];
    const results = await Promise.all(
      [boss, ...others].map((x, i) => x.client.request("PATCH", `/api/admin/users/${target.user.id}`, { json: { quota: { maxApps: 10 + i } } })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await target.client.get("/api/me")).body.quota.maxApps).toBeGreaterThanOrEqual(10);
  });
});

describe("approvals", () => {
  it("lists pending accounts; approve makes them ACTIVE (they can write), reject SUSPENDED; each audited", async () => {
    const a = await withStatus(server, "PENDING");
    const b = await withStatus(server, "PENDING");
    expect((await a.client.post("/api/apps", { slug: `pend-${process.pid}` })).body.error.code).toBe("account_pending");
    const pending = (await boss.client.get("/api/admin/approvals")).body.map((u: { id: string }) => u.id);
    expect(pending).toEqual(expect.arrayContaining([a.user.id, b.user.id]));
    expect((await boss.client.post(`/api/admin/approvals/${a.user.id}`, { decision: "maybe" })).status).toBe(400);
    const approved = await boss.client.post(`/api/admin/approvals/${a.user.id}`, { decision: "approve" });
    expect([approved.status, approved.body.status]).toEqual([200, "ACTIVE"]);
    expect((await a.client.post("/api/apps", { slug: `pend-${process.pid}` })).status).toBe(201);
    const rejected = await boss.client.post(`/api/admin/approvals/${b.user.id}`, { decision: "reject" });
    expect(rejected.body.status).toBe("SUSPENDED");
    expect((await b.client.get("/api/me")).body.error.code).toBe("account_suspended");
    expect((await boss.client.post(`/api/admin/approvals/${a.user.id}`, { decision: "reject" })).status).toBe(409);
    expect((await boss.client.get("/api/admin/approvals")).body.map((u: { id: string }) => u.id)).not.toContain(a.user.id);
    expect((await audit(`target=${a.user.id}`)).map((e) => e.action)).toEqual(["admin.approval.approve"]);
    expect((await audit(`target=${b.user.id}`)).map((e) => e.action)).toEqual(["admin.approval.reject"]);
  });
});

describe("the audit log", () => {
  it("filters by action prefix and date, pages by cursor, and has no way to change or delete entries", async () => {
    const all = await audit("action=admin.");
    expect(all.length).toBeGreaterThan(5);
    expect(all.every((e) => e.action.startsWith("admin."))).toBe(true);
    const newest = all[0].createdAt;
    expect(await audit(`since=${encodeURIComponent(new Date(Date.parse(newest) + 1000).toISOString())}`)).toEqual([]);
    expect((await audit(`until=${encodeURIComponent(new Date(Date.parse(newest) + 1000).toISOString())}&action=admin.`)).length).toBe(all.length);
    const page = await boss.client.graphql(`{ auditEvents(action: "admin.", first: 2) { id } }`);
    const [, second] = page.body.data.auditEvents;
    const next = await boss.client.graphql(`query($after: String) { auditEvents(action: "admin.", first: 2, after: $after) { id } }`, { after: second.id });
    expect(next.body.data.auditEvents.map((e: { id: string }) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
    expect((await boss.client.get("/api/admin/audit?since=yesterday")).status).toBe(400);
    for (const method of ["PATCH", "DELETE", "PUT", "POST"]) {
      expect((await boss.client.request(method, "/api/admin/audit", { json: {} })).status).toBeGreaterThanOrEqual(404);
    }
    const mutations = await boss.client.graphql(`{ __schema { mutationType { fields { name } } } }`);
    expect(mutations.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name).filter((n: string) => /audit/i.test(n))).toEqual([]);
  });
});

describe("anonymous", () => {
  it("the stats answer carries no data without credentials", async () => {
    const res = await new Client(server.url).get("/api/admin/stats");
    expect(res.body.error.code).toBe("unauthenticated");
  });
});
