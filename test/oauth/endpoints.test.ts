// Metadata (RFC 8414), revocation (RFC 7009), introspection (RFC 7662) and userinfo.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { basic, bearer, discover, form, hiddenInputs, issueTokens, oidc, registerClient, startOAuthServer, userWithClient } from "./helpers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server?.close());

const anonymous = () => new Client(server.url);

describe("GET /.well-known/oauth-authorization-server", () => {
  it("lists every endpoint, scope, grant type and PKCE method, with issuer = PUBLIC_URL", async () => {
    const res = await anonymous().get("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      device_authorization_endpoint: `${server.url}/api/oauth/device`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      introspection_endpoint: `${server.url}/oauth/introspect`,
      userinfo_endpoint: `${server.url}/oauth/userinfo`,
      scopes_supported: ["read:user", "write:user", "read:apps", "write:apps", "admin"],
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
      code_challenge_methods_supported: ["S256", "plain"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    });
    // Every advertised endpoint exists (none answers 404).
    for (const key of ["token_endpoint", "device_authorization_endpoint", "revocation_endpoint", "introspection_endpoint"]) {
      expect((await form(anonymous(), new URL(res.body[key]).pathname, {})).status, key).not.toBe(404);
    }
  });

  it("is what openid-client discovers", async () => {
    const { client } = await userWithClient(server);
    const config = await discover(server, client);
    expect(config.serverMetadata().issuer).toBe(server.url);
    expect(config.serverMetadata().supportsPKCE()).toBe(true);
  });
});

describe("GET /oauth/userinfo", () => {
  it("answers Bearer-style 401s (RFC 6750) without or with a bad token", async () => {
    const none = await anonymous().get("/oauth/userinfo");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="slipway"');
    expect(none.body.error.code).toBe("unauthenticated");
    const bad = await bearer(server, "not-a-token").get("/oauth/userinfo");
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(bad.body.error.code).toBe("invalid_token");
  });

  it("expires access tokens after their hour", async () => {
    const { user, client } = await userWithClient(server);
    const tokens = await issueTokens(server, user, client);
    const api = bearer(server, tokens.access_token);
    expect((await api.get("/oauth/userinfo")).status).toBe(200);
    const row = await server.slipway.platform.db.oAuthToken.findFirstOrThrow({ where: { client: { clientId: client.clientId } } });
    expect(Math.round((row.accessTokenExpiresAt.getTime() - row.createdAt.getTime()) / 1000)).toBe(3600);
    await server.slipway.platform.db.oAuthToken.update({ where: { id: row.id }, data: { accessTokenExpiresAt: new Date(Date.now() - 1000) } });
    expect((await api.get("/oauth/userinfo")).status).toBe(401);
  });
});

describe("POST /oauth/revoke", () => {
  it("requires client authentication and a token", async () => {
    const { client } = await userWithClient(server);
    const noClient = await form(anonymous(), "/oauth/revoke", { token: "x" });
    expect(noClient.status).toBe(401);
    expect(noClient.body.error).toBe("invalid_client");
    const wrongSecret = await form(anonymous(), "/oauth/revoke", { token: "x" }, basic(client.clientId, "wrong"));
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.headers.get("www-authenticate")).toMatch(/^Basic/);
    const noToken = await form(anonymous(), "/oauth/revoke", {}, basic(client.clientId, client.clientSecret!));
    expect(noToken.status).toBe(400);
    expect(noToken.body.error).toBe("invalid_request");
  });

  it("takes client credentials by one method only: HTTP Basic or the body", async () => {
    const { client } = await userWithClient(server);
    const { client: other } = await userWithClient(server);
    const both = await form(anonymous(), "/oauth/revoke", { token: "x", client_secret: client.clientSecret! }, basic(client.clientId, client.clientSecret!));
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("invalid_request");
    const mismatch = await form(anonymous(), "/oauth/revoke", { token: "x", client_id: other.clientId }, basic(client.clientId, client.clientSecret!));
    expect(mismatch.status).toBe(401);
    expect(mismatch.body.error).toBe("invalid_client");
    expect(mismatch.headers.get("www-authenticate")).toBe('Basic realm="slipway"');
  });

  it("revokes an access token (openid-client), answers 200 for unknown tokens and ignores other clients' tokens", async () => {
    const { user, client } = await userWithClient(server);
    const other = await registerClient(user);
    const tokens = await issueTokens(server, user, client);
    const api = bearer(server, tokens.access_token);

    const foreign = await form(anonymous(), "/oauth/revoke", { token: tokens.access_token }, basic(other.clientId, other.clientSecret!));
    expect(foreign.status).toBe(200);
    expect((await api.get("/oauth/userinfo")).status).toBe(200);
    const unknown = await form(anonymous(), "/oauth/revoke", { token: "nothing-like-this" }, basic(client.clientId, client.clientSecret!));
    expect(unknown.status).toBe(200);

    await oidc.tokenRevocation(await discover(server, client), tokens.access_token);
    expect((await api.get("/oauth/userinfo")).status).toBe(401);
  });

  it("revokes a refresh token with its whole family", async () => {
    const { user, client } = await userWithClient(server);
    const first = await issueTokens(server, user, client);
    const rotated = await form(anonymous(), "/oauth/token", {
      grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: client.clientId, client_secret: client.clientSecret!,
    });
    const res = await form(anonymous(), "/oauth/revoke", { token: rotated.body.refresh_token, token_type_hint: "refresh_token", client_id: client.clientId, client_secret: client.clientSecret! });
    expect(res.status).toBe(200);
    for (const access of [first.access_token, rotated.body.access_token]) expect((await bearer(server, access).get("/oauth/userinfo")).status).toBe(401);
  });

  it("lets a public client revoke its own tokens with its client_id", async () => {
    const { user, client: publicClient } = await userWithClient(server, { public: true });
    const config = await discover(server, publicClient);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: publicClient.redirectUris[0], code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256",
    });
    const page = await user.get(`${url.pathname}${url.search}`);
    const posted = await form(user, "/oauth/authorize", { ...hiddenInputs(page.body), decision: "approve" });
    const tokens = await oidc.authorizationCodeGrant(config, new URL(posted.headers.get("location")!), { pkceCodeVerifier: verifier });
    await oidc.tokenRevocation(config, tokens.refresh_token!);
    expect((await bearer(server, tokens.access_token).get("/oauth/userinfo")).status).toBe(401);
  });
});

describe("POST /oauth/introspect", () => {
  it("requires client authentication", async () => {
    const res = await form(anonymous(), "/oauth/introspect", { token: "x", client_id: "svc_000000000000000000000000" });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("invalid_client");
  });

  it("refuses public clients, whose client_id is no credential (RFC 7662 §2.1), and says so in the metadata", async () => {
    const { user, client: publicClient } = await userWithClient(server, { public: true });
    const config = await discover(server, publicClient);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: publicClient.redirectUris[0], code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256",
    });
    const page = await user.get(`${url.pathname}${url.search}`);
    const posted = await form(user, "/oauth/authorize", { ...hiddenInputs(page.body), decision: "approve" });
    const tokens = await oidc.authorizationCodeGrant(config, new URL(posted.headers.get("location")!), { pkceCodeVerifier: verifier });

    const refused = await oidc.tokenIntrospection(config, tokens.access_token).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(oidc.ResponseBodyError);
    expect(refused).toMatchObject({ status: 401, error: "invalid_client", error_description: expect.stringMatching(/confidential clients/) });
    const raw = await form(anonymous(), "/oauth/introspect", { token: tokens.access_token, client_id: publicClient.clientId });
    expect(raw.status).toBe(401);
    expect(raw.body).not.toHaveProperty("active");

    const metadata = (await anonymous().get("/.well-known/oauth-authorization-server")).body;
    expect(metadata.introspection_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post"]);
    expect(metadata.revocation_endpoint_auth_methods_supported).toContain("none");
  });

  it("describes an active token to the client it was issued to (openid-client), and nothing to others", async () => {
    const { user, client, account } = await userWithClient(server);
    const other = await registerClient(user);
    const tokens = await issueTokens(server, user, client, "read:user read:apps");
    const info = await oidc.tokenIntrospection(await discover(server, client), tokens.access_token);
    expect(info).toMatchObject({
      active: true,
      scope: "read:user read:apps",
      client_id: client.clientId,
      username: account.name,
      sub: account.user.id,
      token_type: "Bearer",
      iss: server.url,
    });
    expect(info.exp! - info.iat!).toBe(3600);
    const res = await form(anonymous(), "/oauth/introspect", { token: tokens.access_token }, basic(other.clientId, other.clientSecret!));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toEqual({ active: false });
    const refresh = await form(anonymous(), "/oauth/introspect", { token: tokens.refresh_token, token_type_hint: "refresh_token" }, basic(client.clientId, client.clientSecret!));
    expect(refresh.body).toMatchObject({ active: true, client_id: client.clientId });
  });

  it("answers active: false for revoked, expired, rotated and unknown tokens", async () => {
    const { user, client } = await userWithClient(server);
    const auth = basic(client.clientId, client.clientSecret!);
    const introspect = async (token: string) => (await form(anonymous(), "/oauth/introspect", { token }, auth)).body;
    expect(await introspect("unknown")).toEqual({ active: false });

    const revoked = await issueTokens(server, user, client);
    await form(anonymous(), "/oauth/revoke", { token: revoked.access_token }, auth);
    expect(await introspect(revoked.access_token)).toEqual({ active: false });

    const rotated = await issueTokens(server, user, client);
    await form(anonymous(), "/oauth/token", { grant_type: "refresh_token", refresh_token: rotated.refresh_token }, auth);
    expect(await introspect(rotated.refresh_token)).toEqual({ active: false });
    expect((await introspect(rotated.access_token)).active).toBe(true);

    await server.slipway.platform.db.oAuthToken.updateMany({ where: { client: { clientId: client.clientId } }, data: { accessTokenExpiresAt: new Date(Date.now() - 1000) } });
    expect(await introspect(rotated.access_token)).toEqual({ active: false });
  });
});
