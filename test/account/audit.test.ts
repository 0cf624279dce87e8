// Every security-relevant action a user takes leaves one AuditEvent row: actor (id and name), action, target,
// the client's address, and details without a secret (no password, token, client secret or env var value).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { basic, bearer, form, hiddenInputs, issueTokens, registerClient } from "../oauth/helpers.ts";

const PASSWORD = "correct horse battery";
const NEW_PASSWORD = "quiet lantern orbit meadow";
const ENV_VALUE = "s3cr3t-env-value-never-logged";

let server: TestServer;
/** Every secret value the tests send: none may appear in any audit row. */
const secrets = new Set<string>([PASSWORD, NEW_PASSWORD, ENV_VALUE]);

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
});
afterAll(async () => {
  // No audit row holds a secret value, whatever test wrote it.
  const rows = JSON.stringify(await server.slipway.platform.db.auditEvent.findMany());
  for (const secret of secrets) expect(rows).not.toContain(secret);
  await server?.close();
});

async function eventsOf(where: { action: string; actorId?: string | null; targetId?: string }) {
  return server.slipway.platform.db.auditEvent.findMany({ where, orderBy: { createdAt: "asc" } });
}

async function onlyEvent(where: { action: string; actorId?: string | null; targetId?: string }) {
  const rows = await eventsOf(where);
  expect(rows, `${where.action} recorded once`).toHaveLength(1);
  return rows[0];
}

describe("audit log of user actions", () => {
  it("sign-in, failed sign-in (with the attempted email, never the password) and sign-out", async () => {
    const client = new Client(server.url);
    const { user, email, name } = await client.signup();
    const failed = await new Client(server.url).post("/api/auth/login", { email, password: "wrong password here" });
    expect(failed.status).toBe(401);
    secrets.add("wrong password here");
    const unknownEmail = `nobody-${Date.now()}@example.com`;
    await new Client(server.url).post("/api/auth/login", { email: unknownEmail, password: "another wrong one" });
    secrets.add("another wrong one");
    const again = new Client(server.url);
    expect((await again.post("/api/auth/login", { email, password: PASSWORD })).status).toBe(200);
    expect((await again.post("/api/auth/logout")).status).toBe(204);

    const signIn = await onlyEvent({ action: "auth.sign_in", actorId: user.id });
    expect(signIn).toMatchObject({ actorName: name, targetType: "user", targetId: user.id, ip: "127.0.0.1" });
    const failure = await onlyEvent({ action: "auth.sign_in_failed", targetId: user.id });
    expect(failure).toMatchObject({ actorId: null, actorName: null, ip: "127.0.0.1", details: { email } });
    const unknown = (await eventsOf({ action: "auth.sign_in_failed" })).find((e) => (e.details as { email: string }).email === unknownEmail);
    expect(unknown).toMatchObject({ actorId: null, targetId: null, ip: "127.0.0.1" });
    const signOut = await onlyEvent({ action: "auth.sign_out", actorId: user.id });
    expect(signOut).toMatchObject({ actorName: name, targetType: "session", ip: "127.0.0.1" });
  });

  it("a throttled sign-in is recorded once when the limit trips (not per refused guess); a suspended account's sign-in is recorded as refused", async () => {
    const client = new Client(server.url);
    const { user, email } = await client.signup();
    for (let i = 0; i < 10; i++) expect((await new Client(server.url).post("/api/auth/login", { email, password: `guess ${i}` })).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await new Client(server.url).post("/api/auth/login", { email, password: PASSWORD })).status).toBe(429);
    const throttled = await onlyEvent({ action: "auth.sign_in_throttled", targetId: user.id });
    expect(throttled).toMatchObject({ actorId: null, ip: "127.0.0.1", details: { email } });

    const other = new Client(server.url);
    const suspended = await other.signup();
    await server.slipway.platform.db.user.update({ where: { id: suspended.user.id }, data: { status: "SUSPENDED" } });
    expect((await new Client(server.url).post("/api/auth/login", { email: suspended.email, password: PASSWORD })).status).toBe(403);
    const refused = await onlyEvent({ action: "auth.sign_in_refused", targetId: suspended.user.id });
    expect(refused).toMatchObject({ actorId: null, details: { email: suspended.email, reason: "suspended" } });
  });

  it("name, email and password changes, and session sign-outs", async () => {
    const client = new Client(server.url);
    const { user, email, name } = await client.signup();
    const other = new Client(server.url);
    await other.post("/api/auth/login", { email, password: PASSWORD });
    const newName = `${name}-b`;
    expect((await client.request("PATCH", "/api/me", { json: { name: newName } })).status).toBe(200);
    const newEmail = `b-${email}`;
    expect((await client.request("PATCH", "/api/me", { json: { email: newEmail, currentPassword: PASSWORD } })).status).toBe(200);
    expect((await client.post("/api/me/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(200);
    const third = new Client(server.url);
    await third.post("/api/auth/login", { email: newEmail, password: NEW_PASSWORD });
    const target = (await client.get("/api/me/sessions")).body.find((s: { current: boolean }) => !s.current);
    expect((await client.request("DELETE", `/api/me/sessions/${target.id}`)).status).toBe(204);

    expect(await onlyEvent({ action: "account.name_change", actorId: user.id })).toMatchObject({
      actorName: newName, targetId: user.id, ip: "127.0.0.1", details: { from: name, to: newName },
    });
    expect(await onlyEvent({ action: "account.email_change", actorId: user.id })).toMatchObject({
      actorName: newName, ip: "127.0.0.1", details: { from: email, to: newEmail },
    });
    expect(await onlyEvent({ action: "account.password_change", actorId: user.id })).toMatchObject({
      actorName: newName, targetType: "user", targetId: user.id, ip: "127.0.0.1", details: { signedOutSessions: 1 },
    });
    expect(await onlyEvent({ action: "account.session_revoke", actorId: user.id })).toMatchObject({
      targetType: "session", targetId: target.id, ip: "127.0.0.1",
    });
    // A refused change records nothing.
    await client.post("/api/me/password", { currentPassword: "not it at all", newPassword: "another strong passphrase" });
    expect(await eventsOf({ action: "account.password_change", actorId: user.id })).toHaveLength(1);
  });

  it("OAuth: client registration, secret rotation, consent, token revocation, app revocation, client deletion", async () => {
    const developer = new Client(server.url);
    const dev = await developer.signup();
    const app = await registerClient(developer);
    secrets.add(app.clientSecret!);
    const user = new Client(server.url);
    const { user: account } = await user.signup();
    const tokens = await issueTokens(server, user, app);
    secrets.add(tokens.access_token);
    secrets.add(tokens.refresh_token);

    const rotated = await developer.post(`/api/oauth/clients/${app.clientId}/secret`);
    expect(rotated.status).toBe(200);
    secrets.add(rotated.body.clientSecret);

    const revoked = await form(new Client(server.url), "/oauth/revoke", { token: tokens.refresh_token }, basic(app.clientId, rotated.body.clientSecret));
    expect(revoked.status).toBe(200);
    const second = await issueTokens(server, user, { ...app, clientSecret: rotated.body.clientSecret });
    secrets.add(second.access_token);
    const withdrawn = await user.graphql(`mutation($id: String!) { revokeAuthorizedApp(clientId: $id) }`, { id: app.clientId });
    expect(withdrawn.body.data.revokeAuthorizedApp).toBe(true);
    const deleted = await developer.graphql(`mutation($id: String!) { deleteOAuthClient(clientId: $id) { ... on OAuthClient { clientId } } }`, { id: app.clientId });
    expect(deleted.body.data.deleteOAuthClient.clientId).toBe(app.clientId);

    const target = { targetType: "oauth_client", targetId: app.clientId, ip: "127.0.0.1" };
    expect(await onlyEvent({ action: "oauth.client_create", actorId: dev.user.id })).toMatchObject({ ...target, actorName: dev.name });
    expect(await onlyEvent({ action: "oauth.client_secret_rotate", actorId: dev.user.id })).toMatchObject({ ...target, actorName: dev.name });
    expect(await onlyEvent({ action: "oauth.client_delete", actorId: dev.user.id })).toMatchObject(target);
    // The second authorization reused the remembered consent: no page, no new consent.
    expect(await onlyEvent({ action: "oauth.consent", actorId: account.id })).toMatchObject({ ...target, details: { scopes: ["read:user"] } });
    const revocations = await eventsOf({ action: "oauth.revoke", actorId: account.id });
    expect(revocations.map((r) => (r.details as { via: string }).via)).toEqual(["client", "user"]);
    for (const r of revocations) expect(r).toMatchObject(target);
  });

  it("a device approval is an oauth.consent too; a denial records nothing", async () => {
    const developer = new Client(server.url);
    await developer.signup();
    const app = await registerClient(developer, { public: true, redirectUris: ["http://127.0.0.1/callback"] });
    const user = new Client(server.url);
    const { user: account } = await user.signup();
    async function decide(decision: "approve" | "deny") {
      const started = await form(new Client(server.url), "/api/oauth/device", { client_id: app.clientId, scope: "read:user read:apps" });
      const entry = await user.get("/oauth/device");
      const consent = await form(user, "/oauth/device", { csrf_token: hiddenInputs(entry.body).csrf_token, user_code: started.body.user_code });
      expect((await form(user, "/oauth/device", { ...hiddenInputs(consent.body), decision })).status).toBe(200);
    }
    await decide("deny");
    expect(await eventsOf({ action: "oauth.consent", actorId: account.id })).toHaveLength(0);
    await decide("approve");
    expect(await onlyEvent({ action: "oauth.consent", actorId: account.id })).toMatchObject({
      targetType: "oauth_client", targetId: app.clientId, ip: "127.0.0.1", details: { scopes: ["read:user", "read:apps"] },
    });
  });

  it("app deletion and env changes record key names only", async () => {
    const owner = new Client(server.url);
    const { user } = await owner.signup();
    const slug = `audited-${process.pid}`;
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    expect((await owner.post(`/api/apps/${slug}/env`, { API_KEY: ENV_VALUE, MODE: ENV_VALUE })).status).toBe(200);
    expect((await owner.request("DELETE", `/api/apps/${slug}/env?key=MODE`)).status).toBe(204);
    expect((await owner.request("DELETE", `/api/apps/${slug}/env?key=NOT_THERE`)).status).toBe(204);
    expect((await owner.request("DELETE", `/api/apps/${slug}`)).status).toBe(204);

    const set = await onlyEvent({ action: "env.set", actorId: user.id });
    expect(set).toMatchObject({ targetType: "app", ip: "127.0.0.1", details: { slug, keys: ["API_KEY", "MODE"] } });
    const unset = await onlyEvent({ action: "env.unset", actorId: user.id });
    expect(unset).toMatchObject({ targetType: "app", targetId: set.targetId, details: { slug, keys: ["MODE"] } });
    expect(await onlyEvent({ action: "app.delete", actorId: user.id })).toMatchObject({ targetType: "app", targetId: set.targetId, details: { slug } });
  });

  it("records the address the server sees for the caller, and nothing for a refused request", async () => {
    const owner = new Client(server.url);
    const { user } = await owner.signup();
    // A stranger's attempt to delete someone else's app is refused and not recorded as their action.
    const stranger = new Client(server.url);
    const { user: strangerUser } = await stranger.signup();
    const slug = `kept-${process.pid}`;
    await owner.post("/api/apps", { slug });
    expect((await stranger.request("DELETE", `/api/apps/${slug}`)).status).toBe(404);
    expect(await eventsOf({ action: "app.delete", actorId: strangerUser.id })).toHaveLength(0);
    expect(await eventsOf({ action: "app.delete", actorId: user.id })).toHaveLength(0);
    // Over a Bearer token the same service records the same action.
    const app = await registerClient(owner);
    secrets.add(app.clientSecret!);
    const tokens = await issueTokens(server, owner, app, "read:user write:apps");
    secrets.add(tokens.access_token);
    expect((await bearer(server, tokens.access_token).post(`/api/apps/${slug}/env`, { TOKEN_SET: ENV_VALUE })).status).toBe(200);
    expect(await onlyEvent({ action: "env.set", actorId: user.id })).toMatchObject({ ip: "127.0.0.1", details: { keys: ["TOKEN_SET"] } });
  });
});
