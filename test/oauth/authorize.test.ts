// The authorization endpoint: its pipeline (error page vs error redirect), the sign-in redirect, and the
// consent page with its form contract, anti-CSRF value and remembered consent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { ADMIN_EMAIL, authorize, authorizePath, form, hiddenInputs, issueTokens, REDIRECT, registerClient, startOAuthServer, userWithClient } from "./helpers.ts";

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
  it("sends a visitor without a session to sign in, with the original URL as next", async () => {
    const { client } = await userWithClient(server);
    const path = authorizePath(codeParams(client.clientId, { scope: "read:user" }));
    const res = await new Client(server.url).get(path);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!, server.url);
    expect(location.pathname).toBe("/login");
    expect(location.searchParams.get("next")).toBe(path);
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
    const { user, client } = await userWithClient(server);
    for (const redirect of [`${REDIRECT}/extra`, `${REDIRECT}/`, REDIRECT.replace(":9", ":10"), `${REDIRECT}?x=1`, "https://evil.example/callback"]) {
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
