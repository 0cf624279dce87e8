// The authorization code exchange: PKCE (S256, plain), client authentication, single use, binding to the
// client and redirect_uri, expiry and replay, driven by openid-client and raw HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../server/auth/secrets.ts";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { authorize, discover, form, oidc, REDIRECT, registerClient, startOAuthServer, exchangeWhileRevoking, userWithClient, whileSlow } from "./helpers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server?.close());

const codeParams = (clientId: string, extra: Record<string, string | undefined> = {}) => ({
  client_id: clientId,
  redirect_uri: REDIRECT,
  response_type: "code",
  state: "xyz-123",
  ...extra,
});

/** The whole flow with openid-client: PKCE S256, consent, code exchange with HTTP Basic client authentication. */
async function fullFlow(user: Client, client: Awaited<ReturnType<typeof registerClient>>, scope = "read:user") {
  const config = await discover(server, client);
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope,
    state: "s-1",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  });
  const { location } = await authorize(user, Object.fromEntries(url.searchParams));
  return oidc.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: "s-1" });
}

describe("exchanging the code (openid-client)", () => {
  it("accepts every secret the client has not deleted, records when each was last used, and refuses a deleted one", async () => {
    const { user, client } = await userWithClient(server);
    const rotated = await user.post(`/api/oauth/clients/${client.clientId}/secret`, {});
    expect(rotated.status).toBe(200);
    const secrets = async () => (await user.get(`/api/oauth/clients/${client.clientId}`)).body.secrets as { id: string; lastUsedAt: string | null }[];
    expect((await secrets()).map((s) => s.lastUsedAt)).toEqual([null, null]);

    const before = Date.now() - 1000;
    expect((await fullFlow(user, client)).access_token).toBeTruthy();
    const newer = { ...client, clientSecret: rotated.body.clientSecret as string };
    expect((await fullFlow(user, newer)).access_token).toBeTruthy();
    const used = await secrets();
    for (const secret of used) expect(Date.parse(secret.lastUsedAt!)).toBeGreaterThanOrEqual(before);

    expect((await user.request("DELETE", `/api/oauth/clients/${client.clientId}/secrets/${used[0].id}`)).status).toBe(200);
    await expect(fullFlow(user, client)).rejects.toMatchObject({ status: 401, code: "OAUTH_WWW_AUTHENTICATE_CHALLENGE" });
    expect((await fullFlow(user, newer)).access_token).toBeTruthy();
  });

  it("refuses an exchange without client authentication or with a wrong secret, leaving the code usable", async () => {
    const { user, client } = await userWithClient(server);
    const code = (await authorize(user, codeParams(client.clientId))).location.searchParams.get("code")!;
    const exchange = (auth: Record<string, string>) =>
      form(new Client(server.url), "/oauth/token", { grant_type: "authorization_code", code, redirect_uri: REDIRECT, ...auth });
    const attempts: Record<string, string>[] = [{}, { client_id: client.clientId }, { client_id: client.clientId, client_secret: "wrong" }];
    for (const auth of attempts) {
      const res = await exchange(auth);
      expect(res.status, JSON.stringify(auth)).toBe(401);
      expect(res.body.error).toBe("invalid_client");
    }
    expect((await exchange({ client_id: client.clientId, client_secret: client.clientSecret! })).status).toBe(200);
  });

  it("issues Bearer tokens for the granted scopes that work on the API and userinfo", async () => {
    const { user, client, account } = await userWithClient(server);
    const tokens = await fullFlow(user, client, "read:user read:apps");
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "read:user read:apps" });
    expect(tokens.refresh_token).toBeTruthy();
    const api = new Client(server.url);
    api.token = tokens.access_token;
    const info = await api.get("/oauth/userinfo");
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      id: account.user.id,
      name: account.name,
      preferred_username: account.name,
      email: account.email,
      avatar: null,
      role: "USER",
      status: "ACTIVE",
      scopes: ["read:user", "read:apps"],
    });
    expect((await api.get("/api/me")).status).toBe(200);
  });

  it("sends Cache-Control: no-store with the token response", async () => {
    const { user, client } = await userWithClient(server);
    const { location } = await authorize(user, codeParams(client.clientId));
    const res = await form(new Client(server.url), "/oauth/token", {
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      client_id: client.clientId,
      client_secret: client.clientSecret!,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "read:user" });
  });

  it("authenticates a public client by PKCE alone and a confidential one by secret in the body", async () => {
    const { user, client } = await userWithClient(server, { public: true });
    expect(client).not.toHaveProperty("clientSecret");
    expect((await fullFlow(user, client)).access_token).toBeTruthy();

    const confidential = await registerClient(user);
    const config = await discover(server, confidential, "post");
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: "read:user", state: "p" });
    const { location } = await authorize(user, Object.fromEntries(url.searchParams));
    const tokens = await oidc.authorizationCodeGrant(config, location, { expectedState: "p" });
    expect(tokens.scope).toBe("read:user");
  });

  it("accepts PKCE plain, and refuses a wrong verifier, burning the code", async () => {
    const { user, client } = await userWithClient(server);
    const verifier = oidc.randomPKCECodeVerifier();
    const code = async () =>
      (await authorize(user, codeParams(client.clientId, { code_challenge: verifier, code_challenge_method: "plain" }))).location.searchParams.get("code")!;
    const exchange = (c: string, codeVerifier: string) =>
      form(new Client(server.url), "/oauth/token", {
        grant_type: "authorization_code", code: c, redirect_uri: REDIRECT, code_verifier: codeVerifier,
        client_id: client.clientId, client_secret: client.clientSecret!,
      });
    expect((await exchange(await code(), verifier)).status).toBe(200);
    const burned = await code();
    const wrong = await exchange(burned, oidc.randomPKCECodeVerifier());
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
    const retry = await exchange(burned, verifier);
    expect(retry.body.error).toBe("invalid_grant");
  });

  it("refuses a code_verifier for a code issued without a challenge, and a missing verifier when there was one", async () => {
    const { user, client } = await userWithClient(server);
    const plainCode = (await authorize(user, codeParams(client.clientId))).location.searchParams.get("code")!;
    const res = await form(new Client(server.url), "/oauth/token", {
      grant_type: "authorization_code", code: plainCode, redirect_uri: REDIRECT, code_verifier: oidc.randomPKCECodeVerifier(),
      client_id: client.clientId, client_secret: client.clientSecret!,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");

    const challenge = await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier());
    const pkceCode = (await authorize(user, codeParams(client.clientId, { code_challenge: challenge, code_challenge_method: "S256" }))).location.searchParams.get("code")!;
    const missing = await form(new Client(server.url), "/oauth/token", {
      grant_type: "authorization_code", code: pkceCode, redirect_uri: REDIRECT, client_id: client.clientId, client_secret: client.clientSecret!,
    });
    expect(missing.body.error).toBe("invalid_grant");
  });

  it("answers an exchange without code with invalid_request", async () => {
    const { client } = await userWithClient(server);
    const res = await form(new Client(server.url), "/oauth/token", {
      grant_type: "authorization_code", redirect_uri: REDIRECT, client_id: client.clientId, client_secret: client.clientSecret!,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_request", error_description: expect.stringMatching(/code/) });
  });

  it("binds the code to its client and redirect_uri", async () => {
    const { user, client } = await userWithClient(server, { redirectUris: [REDIRECT, "http://localhost:9/other"] });
    const other = await registerClient(user);
    const code = (await authorize(user, codeParams(client.clientId))).location.searchParams.get("code")!;
    const wrongClient = await form(new Client(server.url), "/oauth/token", {
      grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: other.clientId, client_secret: other.clientSecret!,
    });
    expect(wrongClient.body.error).toBe("invalid_grant");

    const code2 = (await authorize(user, codeParams(client.clientId))).location.searchParams.get("code")!;
    for (const redirect of ["http://localhost:9/other", undefined]) {
      const res = await form(new Client(server.url), "/oauth/token", {
        grant_type: "authorization_code", code: code2, redirect_uri: redirect, client_id: client.clientId, client_secret: client.clientSecret!,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_grant");
    }
  });

  it("expires codes after 10 minutes at most", async () => {
    const { user, client } = await userWithClient(server);
    const before = Date.now();
    const code = (await authorize(user, codeParams(client.clientId))).location.searchParams.get("code")!;
    const row = await server.slipway.platform.db.oAuthAuthorizationCode.findFirstOrThrow({ where: { client: { clientId: client.clientId } } });
    expect(row.expiresAt.getTime() - before).toBeLessThanOrEqual(600_000 + 1000);
    expect(row.codeHash).toBe(hashToken(code)); // stored only as a hash
    expect(JSON.stringify(row)).not.toContain(code);
    await server.slipway.platform.db.oAuthAuthorizationCode.update({ where: { id: row.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await form(new Client(server.url), "/oauth/token", {
      grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: client.clientId, client_secret: client.clientSecret!,
    });
    expect(res.body.error).toBe("invalid_grant");
  });

  it("refuses a replayed code and revokes the tokens it issued", async () => {
    const { user, client } = await userWithClient(server);
    const code = (await authorize(user, codeParams(client.clientId))).location.searchParams.get("code")!;
    const exchange = () =>
      form(new Client(server.url), "/oauth/token", {
        grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: client.clientId, client_secret: client.clientSecret!,
      });
    const first = await exchange();
    expect(first.status).toBe(200);
    const api = new Client(server.url);
    api.token = first.body.access_token;
    expect((await api.get("/oauth/userinfo")).status).toBe(200);
    const replay = await exchange();
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    expect((await api.get("/oauth/userinfo")).status).toBe(401);
    const refresh = await form(new Client(server.url), "/oauth/token", {
      grant_type: "refresh_token", refresh_token: first.body.refresh_token, client_id: client.clientId, client_secret: client.clientSecret!,
    });
    expect(refresh.body.error).toBe("invalid_grant");
  });

  it("revokes the tokens of a code exchanged twice at once, whichever exchange wins", async () => {
    const { user, client } = await userWithClient(server);
    const code = (await authorize(user, codeParams(client.clientId))).location.searchParams.get("code")!;
    const exchange = () =>
      form(new Client(server.url), "/oauth/token", {
        grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: client.clientId, client_secret: client.clientSecret!,
      });
    // Slow token storage, so the second exchange arrives while the first is storing its tokens.
    const answers = await whileSlow(server.slipway.platform.services.oauthGrants, "issueTokens", () => Promise.all([exchange(), exchange()]));
    expect(answers.some((a) => a.status === 400 && a.body.error === "invalid_grant")).toBe(true);
    for (const answer of answers.filter((a) => a.status === 200)) {
      const api = new Client(server.url);
      api.token = answer.body.access_token;
      expect((await api.get("/oauth/userinfo")).status).toBe(401);
    }
    const rows = await server.slipway.platform.db.oAuthToken.findMany({ where: { client: { clientId: client.clientId } } });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.revokedAt)).toBe(true);
  });

  it("keeps nothing usable from a code exchanged while the user revokes the app", async () => {
    const { user, client } = await userWithClient(server);
    const code = (await authorize(user, codeParams(client.clientId))).location.searchParams.get("code")!;
    const { answer, rows } = await exchangeWhileRevoking(server, user, client.clientId, () =>
      form(new Client(server.url), "/oauth/token", {
        grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: client.clientId, client_secret: client.clientSecret!,
      }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_grant");
    expect(rows.length).toBe(1);
    expect(rows.every((row) => row.revokedAt)).toBe(true);
  });
});
