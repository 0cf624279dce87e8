import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { verifyEmail } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { bearer, issueTokens, registerClient } from "../oauth/helpers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ REQUIRE_APPROVAL: "true", ADMIN_EMAILS: "chief@example.com" });
});
afterAll(() => server?.close());

describe("REQUIRE_APPROVAL and account status", () => {
  it("starts new accounts PENDING; they can sign in and read", async () => {
    const client = new Client(server.url);
    const { user, email, password } = await client.signup();
    expect(user.status).toBe("PENDING");
    expect((await client.get("/api/me")).body.user.status).toBe("PENDING");
    const again = new Client(server.url);
    expect((await again.post("/api/auth/login", { email, password })).status).toBe(200);
    expect((await again.get("/api/me")).status).toBe(200);
  });

  it("refuses a PENDING account's writes with 403 account_pending, over REST and GraphQL", async () => {
    const client = new Client(server.url);
    await client.signup();
    const input = { name: "Pending App", redirectUris: ["http://127.0.0.1:9/callback"] };
    const rest = await client.post("/api/oauth/clients", input);
    expect(rest.status).toBe(403);
    expect(rest.body.error.code).toBe("account_pending");
    const graphql = await client.graphql("mutation ($input: CreateOAuthClientInput!) { createOAuthClient(input: $input) { __typename } }", { input });
    expect(graphql.body.errors?.[0].extensions?.code).toBe("account_pending");
    expect((await client.get("/api/oauth/clients")).body).toEqual([]);
  });

  it("tells the viewer what they may do: a PENDING account reads only, an ACTIVE one writes, an admin administers, a token only its scopes", async () => {
    const CAN = "{ viewer { can { writeUser writeApps administer } } }";
    const pending = new Client(server.url);
    const { user } = await pending.signup();
    expect((await pending.graphql(CAN)).body.data.viewer.can).toEqual({ writeUser: false, writeApps: false, administer: false });
    await server.slipway.platform.db.user.update({ where: { id: user.id }, data: { status: "ACTIVE" } });
    expect((await pending.graphql(CAN)).body.data.viewer.can).toEqual({ writeUser: true, writeApps: true, administer: false });
    const readOnly = bearer(server, (await issueTokens(server, pending, await registerClient(pending), "read:user")).access_token);
    expect((await readOnly.graphql(CAN)).body.data.viewer.can).toEqual({ writeUser: false, writeApps: false, administer: false });
    const chief = new Client(server.url);
    await chief.signup({ email: "chief-can@example.com" });
    await server.slipway.platform.db.user.update({ where: { email: "chief-can@example.com" }, data: { role: "ADMIN", status: "ACTIVE" } });
    expect((await chief.graphql(CAN)).body.data.viewer.can).toEqual({ writeUser: true, writeApps: true, administer: true });
  });

  it("makes a listed address ADMIN and ACTIVE once verified, PENDING like any other before", async () => {
    const { user } = await new Client(server.url).signup({ email: "chief@example.com" });
    expect(user).toMatchObject({ role: "USER", status: "PENDING" });
    expect(await verifyEmail(server, "chief@example.com")).toMatchObject({ role: "ADMIN", status: "ACTIVE" });
  });

  it("refuses a SUSPENDED account at sign-in and on its existing sessions with 403 account_suspended", async () => {
    const client = new Client(server.url);
    const { user, email, password } = await client.signup();
    await server.slipway.platform.db.user.update({ where: { id: user.id }, data: { status: "SUSPENDED" } });
    const me = await client.get("/api/me");
    expect(me.status).toBe(403);
    expect(me.body.error.code).toBe("account_suspended");
    const graphql = await client.graphql("{ me { name } }");
    expect(graphql.body.errors?.[0].extensions?.code).toBe("account_suspended");
    const login = await new Client(server.url).post("/api/auth/login", { email, password });
    expect(login.status).toBe(403);
    expect(login.body.error.code).toBe("account_suspended");
    // A wrong password still gets the generic answer: suspension is only revealed to the account's owner.
    const wrong = await new Client(server.url).post("/api/auth/login", { email, password: "not the password" });
    expect(wrong.body.error.code).toBe("invalid_credentials");
  });

  it("refuses a SUSPENDED account's OAuth access tokens with 403 account_suspended", async () => {
    const client = new Client(server.url);
    const { user } = await client.signup();
    const { db } = server.slipway.platform;
    await db.user.update({ where: { id: user.id }, data: { status: "ACTIVE" } });
    const tokens = await issueTokens(server, client, await registerClient(client));
    const api = bearer(server, tokens.access_token);
    expect((await api.get("/api/me")).status).toBe(200);
    await db.user.update({ where: { id: user.id }, data: { status: "SUSPENDED" } });
    const me = await api.get("/api/me");
    expect(me.status).toBe(403);
    expect(me.body.error.code).toBe("account_suspended");
  });
});
