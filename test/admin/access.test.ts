// Who may use the admin routes and limit requests: 401 without credentials, 403 forbidden for a non-admin,
// account_pending / account_suspended for such accounts, over REST and GraphQL alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { admin, signedUp, withStatus } from "./helpers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
});
afterAll(() => server?.close());

const id = "ckzzzzzzzzzzzzzzzzzzzzzzz";
const ADMIN_ROUTES: [string, string, unknown?][] = [
  ["GET", "/api/admin/stats"],
  ["GET", "/api/admin/users?status=ACTIVE&q=a"],
  ["PATCH", `/api/admin/users/${id}`, { role: "ADMIN" }],
  ["GET", "/api/admin/approvals"],
  ["POST", `/api/admin/approvals/${id}`, { decision: "approve" }],
  ["GET", "/api/admin/quota-requests?status=PENDING"],
  ["POST", `/api/admin/quota-requests/${id}`, { decision: "approve" }],
  ["GET", "/api/admin/audit?action=admin."],
];

async function statuses(client: Client) {
  const out = [];
  for (const [method, path, json] of ADMIN_ROUTES) {
    const res = await client.request(method, path, { json });
    out.push(`${method} ${path.split("?")[0]} ${res.status} ${res.body?.error?.code}`);
  }
  return out;
}
const expected = (status: number, code: string) => ADMIN_ROUTES.map(([m, p]) => `${m} ${p.split("?")[0]} ${status} ${code}`);

describe("admin routes refuse everyone but active administrators", () => {
  it("401 unauthenticated without credentials", async () => {
    expect(await statuses(new Client(server.url))).toEqual(expected(401, "unauthenticated"));
  });

  it("403 forbidden for a signed-in user who is not an admin", async () => {
    const { client } = await signedUp(server);
    expect(await statuses(client)).toEqual(expected(403, "forbidden"));
  });

  it("403 for pending and suspended users, and 403 account_pending / account_suspended for such admins", async () => {
    expect(await statuses((await withStatus(server, "PENDING")).client)).toEqual(expected(403, "forbidden"));
    expect(await statuses((await withStatus(server, "SUSPENDED")).client)).toEqual(expected(403, "account_suspended"));
    expect(await statuses((await withStatus(server, "PENDING", "ADMIN")).client)).toEqual(expected(403, "account_pending"));
    expect(await statuses((await withStatus(server, "SUSPENDED", "ADMIN")).client)).toEqual(expected(403, "account_suspended"));
  });

  it("an active admin gets through (404 for the unknown ids)", async () => {
    const { client } = await admin(server);
    const out = await statuses(client);
    expect(out.filter((s) => / 200 /.test(s))).toHaveLength(5);
    expect(out.filter((s) => / 404 not_found$/.test(s))).toHaveLength(3);
  });

  it("GraphQL admin fields answer the same codes, including a subscription's nested admin-only field", async () => {
    const query = "{ adminStats { users { total } } }";
    expect((await new Client(server.url).graphql(query)).body.errors?.[0].extensions?.code).toBe("unauthenticated");
    const user = (await signedUp(server)).client;
    expect((await user.graphql(query)).body.errors?.[0].extensions?.code).toBe("forbidden");
    for (const q of ["{ auditEvents(first: 5) { id } }", "{ adminUsers(first: 5) { id } }", "{ approvals(first: 5) { id } }", "{ adminQuotaRequests(first: 5) { id } }"]) {
      const res = await user.graphql(q);
      expect(res.body.errors?.[0].extensions?.code).toBe("forbidden");
      expect(res.body.data).toBeNull();
    }
    const mutation = `mutation { updateUser(id: "${id}", input: { role: ADMIN }) { __typename } }`;
    expect((await user.graphql(mutation)).body.errors?.[0].extensions?.code).toBe("forbidden");
    const boss = (await admin(server)).client;
    expect((await boss.graphql(query)).body.data.adminStats.users.total).toBeGreaterThan(0);
  });

  it("a user's own quota requests are theirs only: another user's are not reachable", async () => {
    const a = await signedUp(server);
    const b = await signedUp(server);
    expect((await a.client.post("/api/quota/requests", { limits: { maxApps: 9 }, reason: "a side project" })).status).toBe(201);
    expect((await b.client.get("/api/quota/requests")).body).toEqual([]);
    expect((await a.client.get("/api/quota/requests")).body).toHaveLength(1);
  });
});

describe("limit requests need an account", () => {
  it("401 without credentials, 403 for pending and suspended accounts (writing), 200 reading for pending", async () => {
    const anonymous = new Client(server.url);
    expect((await anonymous.get("/api/quota/requests")).status).toBe(401);
    expect((await anonymous.post("/api/quota/requests", { limits: { maxApps: 9 }, reason: "more" })).status).toBe(401);
    const pending = (await withStatus(server, "PENDING")).client;
    expect((await pending.get("/api/quota/requests")).status).toBe(200);
    const refused = await pending.post("/api/quota/requests", { limits: { maxApps: 9 }, reason: "more" });
    expect([refused.status, refused.body.error.code]).toEqual([403, "account_pending"]);
    const suspended = (await withStatus(server, "SUSPENDED")).client;
    expect((await suspended.get("/api/quota/requests")).body.error.code).toBe("account_suspended");
    expect((await suspended.post("/api/quota/requests", { limits: { maxApps: 9 }, reason: "more" })).status).toBe(403);
  });
});
