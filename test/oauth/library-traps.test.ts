// The known traps of @node-oauth/oauth2-server 5.x, each shown to be closed, and the model on its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../../server/oauth/model.ts";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { authorize, authorizePath, basic, form, hiddenInputs, oidc, REDIRECT, startOAuthServer, userWithClient } from "./helpers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server?.close());

const anonymous = () => new Client(server.url);

function expectRfcError(res: { status: number; headers: Headers; body: any }, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.body).toEqual({ error, error_description: expect.any(String) });
}

describe("trap: authorize without redirect_uri", () => {
  it("uses the only registered URI and does not demand it at the token endpoint", async () => {
    const { user, client } = await userWithClient(server);
    const page = await user.get(authorizePath({ client_id: client.clientId, response_type: "code", state: "s" }));
    expect(page.status).toBe(200);
    expect(hiddenInputs(page.body)).not.toHaveProperty("redirect_uri");
    const posted = await form(user, "/oauth/authorize", { ...hiddenInputs(page.body), decision: "approve" });
    const location = new URL(posted.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    const res = await form(anonymous(), "/oauth/token", {
      grant_type: "authorization_code", code: location.searchParams.get("code")!, client_id: client.clientId, client_secret: client.clientSecret!,
    });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toBeTruthy();
  });
});

describe("trap: errors raised before the library's handler", () => {
  it("answers a wrong method with 405 and an RFC body on every protocol endpoint", async () => {
    for (const path of ["/oauth/token", "/oauth/revoke", "/oauth/introspect", "/api/oauth/device"]) {
      const res = await anonymous().get(path);
      expectRfcError(res, 405, "invalid_request");
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("answers a body that is not a form (JSON, text, malformed, none) with invalid_request", async () => {
    const { client } = await userWithClient(server);
    const params = { grant_type: "authorization_code", code: "x", client_id: client.clientId, client_secret: client.clientSecret };
    expectRfcError(await anonymous().post("/oauth/token", params), 400, "invalid_request");
    const text = await anonymous().request("POST", "/oauth/token", { body: "grant_type=authorization_code", headers: { "content-type": "text/plain" } });
    expectRfcError(text, 400, "invalid_request");
    const malformed = await anonymous().request("POST", "/oauth/token", { body: "{nope", headers: { "content-type": "application/json" } });
    expectRfcError(malformed, 400, "invalid_request");
    expectRfcError(await anonymous().request("POST", "/oauth/token"), 400, "invalid_request");
    const revoke = await anonymous().post("/oauth/revoke", { token: "x", client_id: client.clientId, client_secret: client.clientSecret });
    expectRfcError(revoke, 400, "invalid_request");
  });

  it("answers an unknown client with 401 invalid_client, challenging with Basic only when Basic was used", async () => {
    const body = await form(anonymous(), "/oauth/token", { grant_type: "authorization_code", code: "x", client_id: "svc_000000000000000000000000", client_secret: "s" });
    expectRfcError(body, 401, "invalid_client");
    expect(body.headers.get("www-authenticate")).toBeNull();
    const viaBasic = await form(anonymous(), "/oauth/token", { grant_type: "authorization_code", code: "x" }, basic("svc_000000000000000000000000", "s"));
    expectRfcError(viaBasic, 401, "invalid_client");
    expect(viaBasic.headers.get("www-authenticate")).toBe('Basic realm="slipway"');
    const malformed = await form(anonymous(), "/oauth/token", { grant_type: "authorization_code", code: "x" }, { authorization: "Basic !!!" });
    expectRfcError(malformed, 401, "invalid_client");
    expect(malformed.headers.get("cache-control")).toBe("no-store");
  });

  it("answers missing and unsupported grant types in RFC form", async () => {
    const { client } = await userWithClient(server);
    const auth = { client_id: client.clientId, client_secret: client.clientSecret! };
    expectRfcError(await form(anonymous(), "/oauth/token", auth), 400, "invalid_request");
    for (const grant of ["password", "client_credentials", "implicit"]) {
      expectRfcError(await form(anonymous(), "/oauth/token", { ...auth, grant_type: grant }), 400, "unsupported_grant_type");
    }
  });
});

describe("trap: the library takes each parameter as given", () => {
  const raw = (body: string, headers: Record<string, string> = {}) =>
    anonymous().request("POST", "/oauth/token", { body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers } });

  it("answers a repeated parameter (client_id, code, refresh_token) with invalid_request, not a server error", async () => {
    const { client } = await userWithClient(server);
    const id = encodeURIComponent(client.clientId);
    const secret = encodeURIComponent(client.clientSecret!);
    for (const body of [
      `grant_type=authorization_code&code=x&client_id=${id}&client_id=${id}&client_secret=${secret}`,
      `grant_type=authorization_code&code=x&code=y&client_id=${id}&client_secret=${secret}`,
      `grant_type=refresh_token&refresh_token=x&refresh_token=y&client_id=${id}&client_secret=${secret}`,
    ]) {
      const res = await raw(body);
      expect(res.status, body).toBe(400);
      expect(res.body).toEqual({ error: "invalid_request", error_description: expect.stringMatching(/given once/) });
    }
  });

  it("takes client credentials by one method only: HTTP Basic or the body", async () => {
    const { client } = await userWithClient(server);
    const { client: other } = await userWithClient(server);
    const both = await form(anonymous(), "/oauth/token", { grant_type: "refresh_token", refresh_token: "x", client_secret: client.clientSecret! }, basic(client.clientId, client.clientSecret!));
    expectRfcError(both, 400, "invalid_request");
    const mismatch = await form(anonymous(), "/oauth/token", { grant_type: "refresh_token", refresh_token: "x", client_id: other.clientId }, basic(client.clientId, client.clientSecret!));
    expectRfcError(mismatch, 401, "invalid_client");
    expect(mismatch.headers.get("www-authenticate")).toBe('Basic realm="slipway"');
  });
});

describe("trap: a code_verifier standing in for the client secret", () => {
  it("refuses a confidential client that sends a code_verifier but no secret, and leaves the code usable", async () => {
    const { user, client } = await userWithClient(server);
    const verifier = oidc.randomPKCECodeVerifier();
    const { location } = await authorize(user, {
      client_id: client.clientId, redirect_uri: REDIRECT, response_type: "code",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256",
    });
    const exchange = (extra: Record<string, string>) =>
      form(anonymous(), "/oauth/token", {
        grant_type: "authorization_code", code: location.searchParams.get("code")!, redirect_uri: REDIRECT, code_verifier: verifier, client_id: client.clientId, ...extra,
      });
    expectRfcError(await exchange({}), 401, "invalid_client");
    expect((await exchange({ client_secret: client.clientSecret! })).status).toBe(200);
  });

  it("refuses a public client that sends a secret", async () => {
    const { client } = await userWithClient(server, { public: true });
    const res = await form(anonymous(), "/oauth/token", { grant_type: "refresh_token", refresh_token: "x", client_id: client.clientId, client_secret: "made-up" });
    expectRfcError(res, 401, "invalid_client");
  });
});

describe("trap: validateScope receives undefined when no scope is sent", () => {
  it("grants read:user, shown on the consent page and carried by the token", async () => {
    const { user, client } = await userWithClient(server);
    const page = await user.get(authorizePath({ client_id: client.clientId, response_type: "code" }));
    expect(page.body).toContain("See your name, email address and account details");
    expect(hiddenInputs(page.body).scope).toBe("read:user");
    const posted = await form(user, "/oauth/authorize", { ...hiddenInputs(page.body), decision: "approve" });
    expect(posted.status).toBe(303);
    const res = await form(anonymous(), "/oauth/token", {
      grant_type: "authorization_code", code: new URL(posted.headers.get("location")!).searchParams.get("code")!, client_id: client.clientId, client_secret: client.clientSecret!,
    });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe("read:user");
  });
});

describe("the model", () => {
  const model = () => createModel(server.slipway.platform.services);
  const user = { id: "u", role: "USER" as const, status: "ACTIVE" as const };
  const admin = { ...user, role: "ADMIN" as const };

  it("validateScope: undefined → read:user; unknown → invalid_scope; admin only for admins", async () => {
    const client = { id: "c", clientId: "svc_x", name: "x", public: false, redirectUris: [], grants: [] };
    expect(await model().validateScope(user, client, undefined)).toEqual(["read:user"]);
    expect(await model().validateScope(user, client, ["read:apps", "read:user"])).toEqual(["read:user", "read:apps"]);
    await expect(model().validateScope(user, client, ["read:user", "sudo"])).rejects.toMatchObject({ code: "invalid_scope" });
    await expect(model().validateScope(user, client, ["admin"])).rejects.toMatchObject({ code: "invalid_scope" });
    expect(await model().validateScope(admin, client, ["admin"])).toEqual(["admin"]);
  });

  it("getClient: a confidential client needs its secret, a public one must not send any", async () => {
    const { client } = await userWithClient(server);
    const { client: publicClient } = await userWithClient(server, { public: true });
    expect(await model().getClient(client.clientId, undefined)).toBeNull();
    expect(await model().getClient(client.clientId, "wrong")).toBeNull();
    expect(await model().getClient(client.clientId, client.clientSecret)).toMatchObject({ clientId: client.clientId, public: false });
    expect(await model().getClient(publicClient.clientId, undefined)).toMatchObject({ clientId: publicClient.clientId, public: true });
    expect(await model().getClient(publicClient.clientId, "anything")).toBeNull();
    expect(await model().getClient("svc_000000000000000000000000", "x")).toBeNull();
  });

  it("getAuthorizationCode: a code is single use, and presenting it again revokes what it issued", async () => {
    const { user: owner, client } = await userWithClient(server);
    const { location } = await authorize(owner, { client_id: client.clientId, redirect_uri: REDIRECT, response_type: "code" });
    const code = location.searchParams.get("code")!;
    const found = await model().getAuthorizationCode(code);
    expect(found).toMatchObject({ authorizationCode: code, redirectUri: REDIRECT, scope: ["read:user"] });
    const exchanged = await form(anonymous(), "/oauth/token", {
      grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: client.clientId, client_secret: client.clientSecret!,
    });
    expect(exchanged.status).toBe(200);
    const api = new Client(server.url);
    api.token = exchanged.body.access_token;
    expect((await api.get("/oauth/userinfo")).status).toBe(200);
    expect(await model().getAuthorizationCode(code)).toBeNull();
    expect((await api.get("/oauth/userinfo")).status).toBe(401);
    expect(await model().revokeAuthorizationCode(found!)).toBe(false);
    expect(await model().getAuthorizationCode("never-issued")).toBeNull();
  });
});
