// The device authorization grant (RFC 8628): the device endpoint, the code entry and consent pages, and
// the token endpoint's polling answers, ending with openid-client's own polling.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../server/auth/secrets.ts";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { discover, form, hiddenInputs, oidc, registerClient, startOAuthServer, userWithClient, exchangeWhileRevoking, whileSlow, type RegisteredClient } from "./helpers.ts";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

let server: TestServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server?.close());

const db = () => server.slipway.platform.db;

async function startDevice(client: RegisteredClient, scope?: string) {
  const res = await form(new Client(server.url), "/api/oauth/device", { client_id: client.clientId, client_secret: client.clientSecret ?? undefined, scope });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; expires_in: number; interval: number };
}

const poll = (client: RegisteredClient, deviceCode: string) =>
  form(new Client(server.url), "/oauth/token", { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: client.clientId, client_secret: client.clientSecret ?? undefined });

/** Pretends the device's last poll was long ago (instead of sleeping through the interval). */
const pollLater = async (deviceCode: string) => {
  await db().oAuthDeviceCode.update({ where: { deviceCodeHash: hashToken(deviceCode) }, data: { lastPolledAt: new Date(Date.now() - 60_000) } });
};

/** Types the code on /oauth/device and returns the consent page. */
async function enterCode(user: Client, typed: string) {
  const entry = await user.get("/oauth/device");
  expect(entry.status).toBe(200);
  return form(user, "/oauth/device", { csrf_token: hiddenInputs(entry.body).csrf_token, user_code: typed });
}

async function decide(user: Client, typed: string, decision: "approve" | "deny") {
  const consent = await enterCode(user, typed);
  expect(consent.status, String(consent.body).slice(0, 300)).toBe(200);
  return form(user, "/oauth/device", { ...hiddenInputs(consent.body), decision });
}

describe("POST /api/oauth/device", () => {
  it("refuses unknown clients and confidential clients without their secret with 401 invalid_client", async () => {
    const { client } = await userWithClient(server);
    const unknown = await form(new Client(server.url), "/api/oauth/device", { client_id: "svc_nope" });
    const noSecret = await form(new Client(server.url), "/api/oauth/device", { client_id: client.clientId });
    for (const res of [unknown, noSecret]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "invalid_client", error_description: expect.any(String) });
    }
  });

  it("answers invalid_scope for unknown scopes and invalid_request for a body that is neither form nor JSON", async () => {
    const { client } = await userWithClient(server, { public: true });
    const scope = await form(new Client(server.url), "/api/oauth/device", { client_id: client.clientId, scope: "read:user fly" });
    expect(scope.status).toBe(400);
    expect(scope.body.error).toBe("invalid_scope");
    const text = await new Client(server.url).request("POST", "/api/oauth/device", { body: `client_id=${client.clientId}`, headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(400);
    expect(text.body.error).toBe("invalid_request");
  });

  it("accepts a JSON or a form body and answers the RFC 8628 fields, never cached", async () => {
    const { client } = await userWithClient(server, { public: true });
    const json = await new Client(server.url).post("/api/oauth/device", { client_id: client.clientId, scope: "read:user read:apps" });
    expect(json.status).toBe(200);
    expect(json.headers.get("cache-control")).toBe("no-store");
    expect(json.body).toEqual({
      device_code: expect.stringMatching(/^[\w-]{40,}$/),
      user_code: expect.stringMatching(USER_CODE),
      verification_uri: `${server.url}/oauth/device`,
      verification_uri_complete: `${server.url}/oauth/device?user_code=${json.body.user_code}`,
      expires_in: expect.any(Number),
      interval: 5,
    });
    expect(json.body.expires_in).toBeGreaterThanOrEqual(300);
    const viaForm = await startDevice(client);
    expect(viaForm.user_code).toMatch(USER_CODE);
    expect(viaForm.user_code).not.toBe(json.body.user_code);
    const stored = await db().oAuthDeviceCode.findMany({ where: { client: { clientId: client.clientId } } });
    expect(JSON.stringify(stored)).not.toContain(viaForm.device_code);
  });
});

describe("polling the token endpoint", () => {
  it("answers a poll without device_code with invalid_request", async () => {
    const { client } = await userWithClient(server, { public: true });
    const res = await form(new Client(server.url), "/oauth/token", { grant_type: DEVICE_GRANT, client_id: client.clientId });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_request", error_description: expect.stringMatching(/device_code/) });
  });

  it("answers authorization_pending, then slow_down (+5 s) when polled too fast", async () => {
    const { client } = await userWithClient(server, { public: true });
    const device = await startDevice(client);
    const first = await poll(client, device.device_code);
    expect(first.status).toBe(400);
    expect(first.body.error).toBe("authorization_pending");
    expect(first.headers.get("cache-control")).toBe("no-store");
    const tooFast = await poll(client, device.device_code);
    expect(tooFast.body.error).toBe("slow_down");
    const row = await db().oAuthDeviceCode.findFirstOrThrow({ where: { client: { clientId: client.clientId } } });
    expect(row.interval).toBe(10);
    await pollLater(device.device_code);
    expect((await poll(client, device.device_code)).body.error).toBe("authorization_pending");
  });

  it("answers access_denied after the user denies, expired_token after expiry, invalid_grant for another client", async () => {
    const { user, client } = await userWithClient(server, { public: true });
    const denied = await startDevice(client);
    const outcome = await decide(user, denied.user_code, "deny");
    expect(outcome.body).toContain("Request denied");
    expect((await poll(client, denied.device_code)).body.error).toBe("access_denied");

    const expired = await startDevice(client);
    await db().oAuthDeviceCode.updateMany({ where: { userCode: expired.user_code.replace("-", "") }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await poll(client, expired.device_code)).body.error).toBe("expired_token");
    expect((await enterCode(user, expired.user_code)).status).toBe(400);

    const other = await registerClient(user, { public: true });
    const mine = await startDevice(client);
    expect((await poll(other, mine.device_code)).body.error).toBe("invalid_grant");
  });
});

describe("GET and POST /oauth/device", () => {
  it("sends a visitor without a session to sign in and back, keeping the code", async () => {
    const res = await new Client(server.url).get("/oauth/device?user_code=BCDF-GHJK");
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!, server.url);
    expect(location.pathname).toBe("/login");
    expect(location.searchParams.get("next")).toBe("/oauth/device?user_code=BCDF-GHJK");
  });

  it("prefills the code from ?user_code= and protects the page", async () => {
    const { user } = await userWithClient(server);
    const res = await user.get("/oauth/device?user_code=BCDF-GHJK");
    expect(res.status).toBe(200);
    expect(res.body).toContain('value="BCDF-GHJK"');
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("refuses a form without the anti-CSRF value", async () => {
    const { user, client } = await userWithClient(server, { public: true });
    const device = await startDevice(client);
    const res = await form(user, "/oauth/device", { user_code: device.user_code, decision: "approve" });
    expect(res.status).toBe(403);
    expect((await poll(client, device.device_code)).body.error).toBe("authorization_pending");
  });

  it("matches the code ignoring case and punctuation, shows the app and a warning, and approves", async () => {
    const { user, client } = await userWithClient(server, { public: true, name: "Deploy CLI", description: "Ships your apps" });
    const device = await startDevice(client, "read:user read:apps");
    const typed = device.user_code.toLowerCase().replace("-", " ");
    const consent = await enterCode(user, typed);
    expect(consent.status).toBe(200);
    expect(consent.body).toContain("Deploy CLI");
    expect(consent.body).toContain("Ships your apps");
    expect(consent.body).toContain("See your apps, their deployments, logs and files");
    expect(consent.body).toMatch(/Never enter or approve a code that someone else sent you/);
    expect(consent.body).toContain('<form method="post" action="/oauth/device">');
    expect(hiddenInputs(consent.body).user_code).toBe(device.user_code);
    const approved = await form(user, "/oauth/device", { ...hiddenInputs(consent.body), decision: "approve" });
    expect(approved.status).toBe(200);
    expect(approved.body).toContain("Device connected");

    const tokens = await poll(client, device.device_code);
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "read:user read:apps" });
    expect(tokens.body.refresh_token).toBeTruthy();
    const again = await poll(client, device.device_code);
    expect(again.body.error).toBe("invalid_grant");
  });

  it("denies a request for the admin scope approved by a non-admin", async () => {
    const { user, client } = await userWithClient(server, { public: true });
    const device = await startDevice(client, "admin");
    const res = await enterCode(user, device.user_code);
    expect(res.status).toBe(400);
    expect(res.body).toContain("admin");
    expect((await poll(client, device.device_code)).body.error).toBe("access_denied");
  });

  it("throttles wrong codes per user with 429", async () => {
    const { user } = await userWithClient(server);
    const entry = await user.get("/oauth/device");
    const csrf = hiddenInputs(entry.body).csrf_token;
    for (let i = 0; i < 10; i++) {
      const wrong = await form(user, "/oauth/device", { csrf_token: csrf, user_code: "BBBB-BBBB" });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toContain("not valid or has expired");
    }
    const blocked = await form(user, "/oauth/device", { csrf_token: csrf, user_code: "BBBB-BBBB" });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("throttles wrong codes typed in parallel: each counts before its lookup", async () => {
    const own = await startOAuthServer(); // a fresh counter store, so the address limit stays out of the way
    try {
      const user = new Client(own.url);
      await user.signup();
      const csrf = hiddenInputs((await user.get("/oauth/device")).body).csrf_token;
      const guesses = () => Promise.all(Array.from({ length: 20 }, () => form(user, "/oauth/device", { csrf_token: csrf, user_code: "BBBB-BBBB" })));
      // A slow lookup, so that the parallel requests overlap.
      const answers = await whileSlow(own.slipway.platform.services.oauthDeviceCodes, "findPending", guesses);
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 400)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    } finally {
      await own.close();
    }
  });

  it("throttles wrong codes per address, across users", async () => {
    const own = await startOAuthServer(); // a fresh counter store: this address has typed no code yet
    try {
      const tryWrong = async (user: Client) => {
        const entry = await user.get("/oauth/device");
        return form(user, "/oauth/device", { csrf_token: hiddenInputs(entry.body).csrf_token, user_code: "BBBB-BBBB" });
      };
      for (let u = 0; u < 3; u++) {
        const user = new Client(own.url);
        await user.signup();
        for (let i = 0; i < 10; i++) expect((await tryWrong(user)).status).toBe(400);
      }
      const fourth = new Client(own.url);
      await fourth.signup();
      expect((await tryWrong(fourth)).status).toBe(429);
    } finally {
      await own.close();
    }
  });

  it("keeps nothing usable from a poll answered while the user revokes the app", async () => {
    const { user, client } = await userWithClient(server);
    const device = await startDevice(client);
    expect((await decide(user, device.user_code, "approve")).status).toBe(200);
    const { answer, rows } = await exchangeWhileRevoking(server, user, client.clientId, () => poll(client, device.device_code));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_grant");
    expect(rows.length).toBe(1);
    expect(rows.every((row) => row.revokedAt)).toBe(true);
  });
});

describe("the device flow with openid-client", () => {
  it("initiates, the user approves in the browser flow, and the client's polling gets tokens", async () => {
    const { user, client } = await userWithClient(server, { public: true });
    const config = await discover(server, client);
    const device = await oidc.initiateDeviceAuthorization(config, { scope: "read:user" });
    expect(device.user_code).toMatch(USER_CODE);
    // The user approves before the first poll, so the client's one wait of `interval` seconds ends in tokens.
    const approved = await decide(user, device.user_code, "approve");
    expect(approved.status).toBe(200);
    const tokens = await oidc.pollDeviceAuthorizationGrant(config, device);
    expect(tokens).toMatchObject({ token_type: "bearer", scope: "read:user" });
    const api = new Client(server.url);
    api.token = tokens.access_token;
    expect((await api.get("/oauth/userinfo")).body.scopes).toEqual(["read:user"]);
  }, 20_000);

  it("a confidential client authenticates with its secret on both endpoints", async () => {
    const { user, client } = await userWithClient(server);
    const config = await discover(server, client);
    const device = await oidc.initiateDeviceAuthorization(config, {});
    await decide(user, device.user_code, "approve");
    const tokens = await poll(client, device.device_code);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe("read:user");
  });
});
