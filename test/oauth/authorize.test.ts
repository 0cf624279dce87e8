// The authorization endpoint: its pipeline (error page vs error redirect), the sign-in redirect, and the
// consent page with its form contract, anti-CSRF value and remembered consent (confidential clients only).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyEmail } from "../helpers/accounts.ts";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { ADMIN_EMAIL, authorize, authorizePath, discover, form, hiddenInputs, issueTokens, oidc, REDIRECT, registerClient, startOAuthServer, userWithClient } from "./helpers.ts";

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

describe("GET /oauth/authorize before consent", () => {
  it("sends a visitor without a session to sign in, with the authorization request (its own parameters) as next", async () => {
    const { client } = await userWithClient(server);
    const params = codeParams(client.clientId, { scope: "read:user" });
    const res = await new Client(server.url).get(authorizePath({ ...params, utm_source: "x".repeat(3000) }));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!, server.url);
    expect(location.pathname).toBe("/login");
    const next = location.searchParams.get("next")!;
    expect(next.startsWith("/oauth/authorize?")).toBe(true);
    expect(Object.fromEntries(new URL(next, server.url).searchParams)).toEqual(params);
  });

  it("refuses an oversized parameter before echoing it anywhere: never copied into Location (sign-in detour, error_description)", async () => {
    const { user, client } = await userWithClient(server);
    const huge = "a".repeat(200_000);
    const anonymous = new Client(server.url);
    const redirected: [Client, Record<string, string | undefined>, string][] = [
      [anonymous, codeParams(client.clientId, { state: huge }), "state"],
      [anonymous, codeParams(client.clientId, { scope: huge }), "scope"],
      [anonymous, codeParams(client.clientId, { code_challenge: huge }), "code_challenge"],
      [user, codeParams(client.clientId, { scope: `read:user ${huge}` }), "scope"],
      [user, codeParams(client.clientId, { response_type: huge }), "response_type"],
      [user, codeParams(client.clientId, { code_challenge_method: huge }), "code_challenge_method"],
    ];
    for (const [caller, params, name] of redirected) {
      const res = await form(caller, "/oauth/authorize", { ...params, decision: "approve", csrf_token: "x" });
      expect(res.status, name).toBe(303);
      const location = res.headers.get("location")!;
      expect(location.length, name).toBeLessThan(1000);
      const url = new URL(location);
      expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
      expect(url.searchParams.get("error"), name).toBe("invalid_request");
      expect(url.searchParams.get("error_description")).toBe(`The ${name} parameter is too long: at most ${{ state: 2000, scope: 500, code_challenge: 128, response_type: 50, code_challenge_method: 16 }[name]} characters.`);
      expect(url.searchParams.get("state"), name).toBe(name === "state" ? null : "xyz-123");
    }
    // Without a known client and redirect URI there is nowhere to redirect: an error page.
    for (const params of [codeParams(`svc_${huge}`), codeParams(client.clientId, { redirect_uri: `${REDIRECT}?${huge}` })]) {
      const res = await form(anonymous, "/oauth/authorize", params);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.body.length).toBeLessThan(10_000);
    }
    // The device page's sign-in detour carries the code typed, bounded too.
    const device = await form(anonymous, "/oauth/device", { user_code: huge, csrf_token: "x" });
    expect(device.status).toBe(400);
    expect(device.headers.get("location")).toBeNull();
  });

  it("sends a decision posted without a session to sign in, then back to the authorization request", async () => {
    const { client } = await userWithClient(server);
    const res = await form(new Client(server.url), "/oauth/authorize", { ...codeParams(client.clientId), decision: "approve", csrf_token: "x" });
    expect(res.status).toBe(302);
    const next = new URL(res.headers.get("location")!, server.url).searchParams.get("next")!;
    expect(next.startsWith("/oauth/authorize?")).toBe(true);
    expect(Object.fromEntries(new URL(next, server.url).searchParams)).toEqual(codeParams(client.clientId));
  });

  it("does not take a Bearer token as consent: it asks for the dashboard session", async () => {
    const { client, user } = await userWithClient(server);
    const tokens = await issueTokens(server, user, client);
    const res = await new Client(server.url).get(authorizePath(codeParams(client.clientId)), { authorization: `Bearer ${tokens.access_token}` });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/login\?next=/);
  });

  it("shows an error page, never a redirect, for an unknown client_id or a missing one", async () => {
    const { user } = await userWithClient(server);
    for (const clientId of ["svc_000000000000000000000000", undefined]) {
      const res = await user.get(authorizePath(codeParams(clientId as string)));
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    }
  });

  it("shows an error page for a redirect_uri that is not registered exactly (prefix, trailing slash, other port)", async () => {
    const { user, client } = await userWithClient(server, { redirectUris: [REDIRECT, "https://app.example/cb", "http://localhost:8000/cb"] });
    const wrong = [`${REDIRECT}/extra`, `${REDIRECT}/`, `${REDIRECT}?x=1`, "https://evil.example/callback", "https://app.example:8443/cb", "http://localhost:8001/cb"];
    for (const redirect of wrong) {
      const res = await user.get(authorizePath(codeParams(client.clientId, { redirect_uri: redirect })));
      expect(res.status, redirect).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.body).toContain("redirect_uri");
    }
  });

  it("shows the error page, not the sign-in redirect, to a visitor without a session", async () => {
    const { client } = await userWithClient(server);
    for (const params of [codeParams("svc_000000000000000000000000"), codeParams(client.clientId, { redirect_uri: "https://evil.example/cb" })]) {
      const res = await new Client(server.url).get(authorizePath(params));
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    }
  });

  it("matches a loopback IP redirect_uri on any port, registered with or without one (RFC 8252 §7.3)", async () => {
    const { user, client } = await userWithClient(server, { public: true, redirectUris: ["http://127.0.0.1/callback", "http://[::1]:8000/cb"] });
    const config = await discover(server, client);
    for (const redirectUri of ["http://127.0.0.1:53124/callback", "http://127.0.0.1/callback", "http://[::1]:61000/cb", "http://[::1]/cb"]) {
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri, scope: "read:user", state: "s", code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256",
      });
      const { location } = await authorize(user, Object.fromEntries(url.searchParams));
      expect(`${location.origin}${location.pathname}`, redirectUri).toBe(redirectUri);
      const tokens = await oidc.authorizationCodeGrant(config, location, { pkceCodeVerifier: verifier, expectedState: "s" });
      expect(tokens.scope).toBe("read:user");
    }
    // Everything but the port must still match: path, query, and the loopback address itself.
    for (const redirectUri of ["http://127.0.0.1:5000/callback/", "http://127.0.0.1:5000/callback?x=1", "http://[::1]:5000/callback", "http://127.0.0.2:5000/callback", "http://localhost:5000/callback", "https://127.0.0.1:5000/callback", "http://127.0.0.1:99999/callback"]) {
      const res = await user.get(authorizePath(codeParams(client.clientId, { redirect_uri: redirectUri, code_challenge: "a".repeat(43) })));
      expect(res.status, redirectUri).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    }
  });

  it("never redirects to a stored URI that today's rules refuse (non-ASCII, wildcard): an error page, not a 500", async () => {
    const { user, client } = await userWithClient(server);
    const db = server.slipway.platform.db;
    for (const stored of ["https://app.example/cb/✓", "https://*/cb"]) {
      // Registered before the rules: written straight to the database, as an old row would be.
      await db.oAuthClient.update({ where: { clientId: client.clientId }, data: { redirectUris: [stored] } });
      for (const params of [codeParams(client.clientId, { redirect_uri: stored }), codeParams(client.clientId, { redirect_uri: undefined, scope: "no:such" })]) {
        const page = await user.get(authorizePath(params));
        expect(page.status, stored).toBe(400);
        expect(page.headers.get("location")).toBeNull();
        expect(page.body).toContain("Its developer must update it");
        const posted = await form(user, "/oauth/authorize", { ...params, decision: "approve", csrf_token: "x" });
        expect(posted.status, stored).toBe(400);
        expect(posted.headers.get("location")).toBeNull();
      }
    }
  });

  it("shows an error page when redirect_uri is omitted and the client registered several", async () => {
    const { user, client } = await userWithClient(server, { redirectUris: [REDIRECT, "https://app.example/cb"] });
    const res = await user.get(authorizePath(codeParams(client.clientId, { redirect_uri: undefined })));
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("redirects other errors with error, error_description and the state", async () => {
    const { user, client } = await userWithClient(server);
    const { client: publicClient } = await userWithClient(server, { public: true });
    const cases: [Record<string, string | undefined>, string][] = [
      [codeParams(client.clientId, { response_type: "token" }), "unsupported_response_type"],
      [codeParams(client.clientId, { response_type: undefined }), "invalid_request"],
      [codeParams(client.clientId, { scope: "read:user launch:missiles" }), "invalid_scope"],
      [codeParams(client.clientId, { scope: "admin" }), "invalid_scope"],
      [codeParams(client.clientId, { code_challenge_method: "S256" }), "invalid_request"],
      [codeParams(client.clientId, { code_challenge: "short", code_challenge_method: "S256" }), "invalid_request"],
      [codeParams(client.clientId, { code_challenge: "a".repeat(43), code_challenge_method: "S512" }), "invalid_request"],
      [codeParams(publicClient.clientId), "invalid_request"],
    ];
    for (const [params, error] of cases) {
      const res = await user.get(authorizePath(params));
      expect(res.status, JSON.stringify(params)).toBe(302);
      const location = new URL(res.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get("error"), JSON.stringify(params)).toBe(error);
      expect(location.searchParams.get("error_description")).toBeTruthy();
      expect(location.searchParams.get("state")).toBe("xyz-123");
      expect(location.searchParams.get("iss")).toBe(server.url);
    }
    const noPkce = await user.get(authorizePath(codeParams(publicClient.clientId)));
    expect(new URL(noPkce.headers.get("location")!).searchParams.get("error_description")).toMatch(/Public clients must use PKCE/);
  });

  it("refuses the admin scope to a non-admin but offers it to an admin", async () => {
    const admin = new Client(server.url);
    await admin.signup({ email: ADMIN_EMAIL, name: "oauth-admin" });
    await verifyEmail(server, ADMIN_EMAIL); // ADMIN_EMAILS applies to a verified address
    const client = await registerClient(admin);
    const page = await admin.get(authorizePath(codeParams(client.clientId, { scope: "admin read:user" })));
    expect(page.status).toBe(200);
    expect(page.body).toContain("Administer Slipway");
  });
});

describe("the consent page", () => {
  it("names the client and the scopes in plain words, with the form contract and protective headers", async () => {
    const { user, client } = await userWithClient(server, { name: "Photo <Printer>", description: "Prints & frames" });
    const res = await user.get(authorizePath(codeParams(client.clientId, { scope: "read:user read:apps" })));
    expect(res.status).toBe(200);
    expect(res.body).toContain("Photo &#60;Printer&#62;");
    expect(res.body).toContain("Prints &#38; frames");
    expect(res.body).toContain("See your name, email address and account details");
    expect(res.body).toContain("See your apps, their deployments, logs and files");
    expect(res.body).toContain('<form method="post" action="/oauth/authorize">');
    expect(res.body).toContain('name="decision" value="approve"');
    expect(res.body).toContain('name="decision" value="deny"');
    expect(hiddenInputs(res.body)).toMatchObject({ client_id: client.clientId, redirect_uri: REDIRECT, state: "xyz-123", scope: "read:user read:apps" });
    expect(hiddenInputs(res.body).csrf_token).toMatch(/^[\w-]{40,}$/);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("tells who made the app, its homepage and where the answer goes; the client id only in the details line", async () => {
    const { user, account, client } = await userWithClient(server, { name: "Gallery", redirectUris: ["https://gallery.example/cb"] });
    const update = `mutation($id: String!, $input: UpdateOAuthClientInput!) { updateOAuthClient(clientId: $id, input: $input) { __typename } }`;
    await user.graphql(update, { id: client.clientId, input: { homepageUrl: "https://gallery.example/about" } });
    const visitor = new Client(server.url);
    const me = await visitor.signup();
    const res = await visitor.get(authorizePath(codeParams(client.clientId, { redirect_uri: "https://gallery.example/cb" })));
    expect(res.status).toBe(200);
    const text = res.body.replace(/<[^>]+>/g, "").replace(/\s+/g, " ");
    expect(text).toContain(`Authorize Gallery by ${account.name}`);
    expect(res.body).toContain('href="https://gallery.example/about"');
    expect(text).toContain("After you answer, you will be sent to gallery.example");
    expect(text).toContain(`Signed in as ${me.name} (${me.email})`);
    expect(text).toContain("Not you? Sign out and use another account");
    expect(text).toMatch(new RegExp(`Client ID ${client.clientId} · scopes`));
    // Not in the headline: only in the decision form, the switch-account form's way back, and the details line.
    expect(res.body.match(new RegExp(client.clientId, "g"))!.length).toBe(3);
    expect(res.body.match(/<h1>[^<]*<\/h1>/)![0]).toBe("<h1>Authorize Gallery</h1>");
  });

  it("'Not you?' signs out and comes back to the consent page after signing in; a forged form or an outside next goes nowhere else", async () => {
    const { client } = await userWithClient(server);
    const visitor = new Client(server.url);
    await visitor.signup();
    const consent = authorizePath(codeParams(client.clientId));
    const page = await visitor.get(consent);
    const token = page.body.match(/name="switch_token" type="hidden" value="([^"]+)"/)![1];
    const next = page.body.match(/name="next" type="hidden" value="([^"]+)"/)![1].replace(/&#38;/g, "&");
    expect(next).toBe(consent);

    const forged = await form(visitor, "/oauth/switch-account", { switch_token: "x", next });
    expect(forged.status).toBe(403);
    expect((await visitor.get("/api/me")).status).toBe(200);

    for (const hostile of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
      const other = new Client(server.url);
      await other.signup();
      const otherToken = (await other.get(consent)).body.match(/name="switch_token" type="hidden" value="([^"]+)"/)![1];
      const res = await form(other, "/oauth/switch-account", { switch_token: otherToken, next: hostile });
      expect(res.status, hostile).toBe(303);
      expect(res.headers.get("location"), hostile).toBe("/login");
    }

    const oldCookie = visitor.cookie;
    const res = await form(visitor, "/oauth/switch-account", { switch_token: token, next });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/login?next=${encodeURIComponent(consent)}`);
    expect(res.headers.get("set-cookie")).toMatch(/slipway_session=;/);
    visitor.cookie = oldCookie; // replayed: the session itself is gone
    expect((await visitor.get("/api/me")).status).toBe(401);
  });

  it("refuses a decision without the anti-CSRF value, or with another session's", async () => {
    const { user, client } = await userWithClient(server);
    const other = new Client(server.url);
    await other.signup();
    const page = await user.get(authorizePath(codeParams(client.clientId)));
    const inputs = hiddenInputs(page.body);
    const otherPage = await other.get(authorizePath(codeParams(client.clientId)));
    for (const csrf of [undefined, hiddenInputs(otherPage.body).csrf_token]) {
      const res = await form(user, "/oauth/authorize", { ...inputs, csrf_token: csrf, decision: "approve" });
      expect(res.status).toBe(403);
      expect(res.headers.get("location")).toBeNull();
    }
  });

  it("refuses an approval whose redirect_uri was changed in the form: error page, no redirect", async () => {
    const { user, client } = await userWithClient(server);
    const page = await user.get(authorizePath(codeParams(client.clientId)));
    const res = await form(user, "/oauth/authorize", { ...hiddenInputs(page.body), redirect_uri: "https://evil.example/cb", decision: "approve" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("answers a denial with error=access_denied and the state", async () => {
    const { user, client } = await userWithClient(server);
    const { location } = await authorize(user, codeParams(client.clientId), "deny");
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("xyz-123");
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("is never skipped for a public client, whatever it was granted before (RFC 8252 §8.6)", async () => {
    const { user, client } = await userWithClient(server, { public: true });
    const params = codeParams(client.clientId, { scope: "read:user", code_challenge: "a".repeat(43), code_challenge_method: "S256" });
    const first = await authorize(user, params);
    expect(first.consentShown).toBe(true);
    expect(first.location.searchParams.get("code")).toBeTruthy();
    const again = await authorize(user, params);
    expect(again.consentShown).toBe(true);
    expect(again.location.searchParams.get("code")).toBeTruthy();
  });

  it("is skipped for scopes already granted to the same client, and shown again for new ones", async () => {
    const { user, client } = await userWithClient(server);
    const first = await authorize(user, codeParams(client.clientId, { scope: "read:user read:apps" }));
    expect(first.consentShown).toBe(true);
    const again = await authorize(user, codeParams(client.clientId, { scope: "read:apps" }));
    expect(again.consentShown).toBe(false);
    expect(again.location.searchParams.get("code")).toBeTruthy();
    expect(again.location.searchParams.get("state")).toBe("xyz-123");
    const more = await authorize(user, codeParams(client.clientId, { scope: "write:apps" }));
    expect(more.consentShown).toBe(true);
  });
});
