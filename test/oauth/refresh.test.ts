// Refresh tokens: rotated on every use, never expiring, and a reused (rotated) one revokes its family.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { authorize, basic, bearer, discover, form, oidc, REDIRECT, registerClient, startOAuthServer, userWithClient, whileSlow, type RegisteredClient } from "./helpers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server?.close());

async function tokensFor(user: Client, client: RegisteredClient, scope = "read:user read:apps") {
  const verifier = oidc.randomPKCECodeVerifier();
  const { location } = await authorize(user, {
    client_id: client.clientId, redirect_uri: REDIRECT, response_type: "code", scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256",
  });
  const config = await discover(server, client);
  return { config, tokens: await oidc.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier }) };
}

const refresh = (client: RegisteredClient, refreshToken: string, extra: Record<string, string> = {}) =>
  form(new Client(server.url), "/oauth/token", {
    grant_type: "refresh_token", refresh_token: refreshToken, client_id: client.clientId, client_secret: client.clientSecret ?? undefined, ...extra,
  });

async function userinfoStatus(accessToken: string) {
  const api = new Client(server.url);
  api.token = accessToken;
  return (await api.get("/oauth/userinfo")).status;
}

describe("refresh_token grant", () => {
  it("refuses without the confidential client's secret, and for another client's token", async () => {
    const { user, client } = await userWithClient(server);
    const { tokens } = await tokensFor(user, client);
    const noSecret = await form(new Client(server.url), "/oauth/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: client.clientId });
    expect(noSecret.status).toBe(401);
    expect(noSecret.body.error).toBe("invalid_client");
    const other = await registerClient(user);
    const foreign = await refresh(other, tokens.refresh_token!);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toBe("invalid_grant");
  });

  it("rotates the refresh token on every use (openid-client), keeping the scope", async () => {
    const { user, client } = await userWithClient(server);
    const { config, tokens } = await tokensFor(user, client);
    const second = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(second.access_token).not.toBe(tokens.access_token);
    expect(second).toMatchObject({ expires_in: 3600, scope: "read:user read:apps" });
    const third = await oidc.refreshTokenGrant(config, second.refresh_token!);
    expect(await userinfoStatus(third.access_token)).toBe(200);
    const row = await server.slipway.platform.db.oAuthToken.findFirstOrThrow({ where: { client: { clientId: client.clientId }, rotatedAt: null } });
    expect(row.refreshTokenExpiresAt).toBeNull(); // refresh tokens never expire
  });

  it("lets a public client refresh with its client_id alone", async () => {
    const { user, client } = await userWithClient(server, { public: true });
    const { config, tokens } = await tokensFor(user, client);
    const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(next.access_token).toBeTruthy();
  });

  it("narrows the scope on request but never widens it", async () => {
    const { user, client } = await userWithClient(server);
    const { tokens } = await tokensFor(user, client);
    const wider = await refresh(client, tokens.refresh_token!, { scope: "read:user write:apps" });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe("invalid_scope");
    // The refused request did not use up the refresh token.
    const narrower = await refresh(client, tokens.refresh_token!, { scope: "read:apps" });
    expect(narrower.status).toBe(200);
    expect(narrower.body.scope).toBe("read:apps");
    expect((await refresh(client, narrower.body.refresh_token, { scope: "read:user write:apps" })).body.error).toBe("invalid_scope");
  });

  it("narrows only the access token: the new refresh token keeps the grant's whole scope (RFC 6749 §6, openid-client)", async () => {
    const { user, client } = await userWithClient(server);
    const { config, tokens } = await tokensFor(user, client, "read:user read:apps");
    const narrowed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { scope: "read:apps" });
    expect(narrowed.scope).toBe("read:apps");
    expect((await bearer(server, narrowed.access_token).get("/oauth/userinfo")).status).toBe(403); // read:user was left out
    const introspected = await form(new Client(server.url), "/oauth/introspect", { token: narrowed.refresh_token!, token_type_hint: "refresh_token" }, basic(client.clientId, client.clientSecret!));
    expect(introspected.body).toMatchObject({ active: true, scope: "read:user read:apps" });
    // The grant was not narrowed: its next refresh token can ask for read:user again, or for everything.
    const back = await oidc.refreshTokenGrant(config, narrowed.refresh_token!, { scope: "read:user" });
    expect(back.scope).toBe("read:user");
    const whole = await oidc.refreshTokenGrant(config, back.refresh_token!);
    expect(whole.scope).toBe("read:user read:apps");
    expect((await bearer(server, whole.access_token).get("/oauth/userinfo")).status).toBe(200);
  });

  it("drops the admin scope once its user is no longer an admin", async () => {
    const { user, account, client } = await userWithClient(server);
    const db = server.slipway.platform.db;
    await db.user.update({ where: { id: account.user.id }, data: { role: "ADMIN" } });
    const { tokens } = await tokensFor(user, client, "read:user admin");
    expect(tokens.scope).toBe("read:user admin");
    await db.user.update({ where: { id: account.user.id }, data: { role: "USER" } });
    const refreshed = await refresh(client, tokens.refresh_token!);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe("read:user");
    const row = await db.oAuthToken.findFirstOrThrow({ where: { client: { clientId: client.clientId }, rotatedAt: null } });
    expect(row.scope).toBe("read:user");
  });

  it("refuses to refresh a grant of which the user's role no longer allows any scope", async () => {
    const { user, account, client } = await userWithClient(server);
    const db = server.slipway.platform.db;
    await db.user.update({ where: { id: account.user.id }, data: { role: "ADMIN" } });
    const { tokens } = await tokensFor(user, client, "admin");
    await db.user.update({ where: { id: account.user.id }, data: { role: "USER" } });
    const refused = await refresh(client, tokens.refresh_token!);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_scope");
    expect(await db.oAuthToken.count({ where: { client: { clientId: client.clientId } } })).toBe(1);
    // Promoted again, the same refresh token works: the refusal neither used nor revoked it.
    await db.user.update({ where: { id: account.user.id }, data: { role: "ADMIN" } });
    expect((await refresh(client, tokens.refresh_token!)).body.scope).toBe("admin");
  });

  it("revokes the whole family when a rotated refresh token is used again", async () => {
    const { user, client } = await userWithClient(server);
    const { tokens } = await tokensFor(user, client);
    const rotated = await refresh(client, tokens.refresh_token!);
    expect(rotated.status).toBe(200);
    expect(await userinfoStatus(rotated.body.access_token)).toBe(200);

    const reuse = await refresh(client, tokens.refresh_token!);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe("invalid_grant");
    // The thief's reuse cost the legitimate holder too: everything from that grant is dead.
    expect(await userinfoStatus(rotated.body.access_token)).toBe(401);
    expect(await userinfoStatus(tokens.access_token)).toBe(401);
    expect((await refresh(client, rotated.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("revokes the whole family when one refresh token is exchanged twice at once, whichever exchange wins", async () => {
    const { user, client } = await userWithClient(server);
    const { tokens } = await tokensFor(user, client);
    // Slow token storage, so both exchanges find the token usable before either stores.
    const twice = () => Promise.all([refresh(client, tokens.refresh_token!), refresh(client, tokens.refresh_token!)]);
    const answers = await whileSlow(server.slipway.platform.services.oauthGrants, "issueTokens", twice);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(answers.find((a) => a.status === 400)!.body.error).toBe("invalid_grant");
    for (const answer of answers.filter((a) => a.status === 200)) expect(await userinfoStatus(answer.body.access_token)).toBe(401);
    expect(await userinfoStatus(tokens.access_token)).toBe(401);
    const rows = await server.slipway.platform.db.oAuthToken.findMany({ where: { client: { clientId: client.clientId } } });
    expect(rows.length).toBe(2);
    expect(rows.every((row) => row.revokedAt)).toBe(true);
  });

  it("does not touch other families of the same user and client", async () => {
    const { user, client } = await userWithClient(server);
    const a = (await tokensFor(user, client)).tokens;
    const b = (await tokensFor(user, client)).tokens;
    await refresh(client, a.refresh_token!);
    await refresh(client, a.refresh_token!); // reuse: family a revoked
    expect(await userinfoStatus(b.access_token)).toBe(200);
    expect((await refresh(client, b.refresh_token!)).status).toBe(200);
  });

  it("stores access and refresh tokens only as hashes", async () => {
    const { user, client } = await userWithClient(server);
    const { tokens } = await tokensFor(user, client);
    const rows = await server.slipway.platform.db.oAuthToken.findMany({ where: { client: { clientId: client.clientId } } });
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(tokens.access_token);
    expect(stored).not.toContain(tokens.refresh_token);
    expect(rows[0].accessTokenHash).toMatch(/^[0-9a-f]{64}$/);
  });
});
