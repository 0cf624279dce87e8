// Requests that browsers send from other origins: a hosted app on a sibling subdomain is same-site to the
// dashboard, so its requests carry the SameSite=Lax session cookie. The cookie must never let another origin
// read, write or sign in; Bearer tokens (with CORS_ORIGINS) are the way to call the API cross-origin.
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { bearer, issueTokens, userWithClient } from "../oauth/helpers.ts";

const SIBLING = "http://tenant.localhost:3000"; // a hosted app: another origin, the same site
const VIEWER = "{ viewer { user { name } } }";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
});
afterAll(() => server?.close());

async function signedIn() {
  const client = new Client(server.url);
  const account = await client.signup();
  return { client, account };
}

const viewerByGet = (client: Client, headers: Record<string, string>) => client.get(`/graphql?query=${encodeURIComponent(VIEWER)}`, headers);

describe("cross-origin reads with the session cookie", () => {
  it("answer GET /graphql from another origin without CORS headers, and as if nobody were signed in", async () => {
    const { client } = await signedIn();
    const res = await viewerByGet(client, { origin: SIBLING });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.body.data?.viewer ?? null).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe("unauthenticated");
  });

  it("decide from Origin, else Sec-Fetch-Site, else the Referer; a request with none of them is no browser's", async () => {
    const { client, account } = await signedIn();
    const cases: [Record<string, string>, number][] = [
      [{ origin: SIBLING }, 401],
      [{ origin: "null" }, 401],
      [{ "sec-fetch-site": "same-site" }, 401],
      [{ "sec-fetch-site": "cross-site" }, 401],
      [{ referer: `${SIBLING}/page` }, 401],
      [{ origin: server.url, referer: `${SIBLING}/page` }, 200],
      [{ "sec-fetch-site": "same-origin" }, 200],
      [{ "sec-fetch-site": "none" }, 200],
      [{ referer: `${server.url}/account` }, 200],
      [{}, 200],
    ];
    for (const [headers, status] of cases) {
      const res = await client.get("/api/me", headers);
      expect([headers, res.status]).toEqual([headers, status]);
      if (status === 200) expect(res.body.user.name).toBe(account.name);
    }
  });

  it("still serve public routes to a cross-origin caller with the cookie", async () => {
    const { client } = await signedIn();
    const res = await client.get("/api/openapi.json", { "sec-fetch-site": "same-site" });
    expect(res.status).toBe(200);
    const typename = await client.get(`/graphql?query=${encodeURIComponent("{ __typename }")}`, { origin: SIBLING });
    expect(typename.body).toEqual({ data: { __typename: "Query" } });
  });

  it("end a cross-origin event stream as unauthenticated: re-checks use the same credentials", async () => {
    const { client } = await signedIn();
    const query = encodeURIComponent("subscription { viewer { user { name } } }");
    const res = await fetch(`${server.url}/graphql?query=${query}`, {
      headers: { cookie: client.cookie!, origin: SIBLING, accept: "text/event-stream" },
      signal: AbortSignal.timeout(5000), // a stream that goes on is a stream the cookie authenticated
    });
    const text = await res.text();
    expect(text).toContain('"code":"unauthenticated"');
    expect(text).not.toContain('"name"');
  });

  it("leave the OAuth pages' cookie alone: /oauth/authorize is a cross-site navigation by design", async () => {
    const { user, client } = await userWithClient(server);
    const path = `/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, redirect_uri: client.redirectUris[0], response_type: "code" })}`;
    const res = await user.get(path, { "sec-fetch-site": "cross-site" });
    expect(res.status).toBe(200); // the consent page, not a redirect to sign in
    expect(res.body).toContain('name="decision"');
  });
});

describe("cross-origin writes with the session cookie", () => {
  it("refuse a POST with no Origin but a foreign Referer or Sec-Fetch-Site with 403, and the session survives", async () => {
    const { client } = await signedIn();
    for (const headers of [{ referer: `${SIBLING}/page` }, { "sec-fetch-site": "same-site" }] as Record<string, string>[]) {
      const res = await client.post("/api/auth/logout", undefined, headers);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
    const graphql = await client.graphql("mutation { logout }", undefined, { referer: `${SIBLING}/page` });
    expect(graphql.status).toBe(403);
    expect((await client.get("/api/me")).status).toBe(200);
  });

  it("allow a POST whose Referer is Slipway's own page", async () => {
    const { client } = await signedIn();
    const res = await client.post("/api/auth/logout", undefined, { referer: `${server.url}/account` });
    expect(res.status).toBe(204);
  });
});

describe("signing in from another origin (login CSRF)", () => {
  it("refuses REST sign-in and sign-up from another origin with 403 and no cookie, even without a session", async () => {
    const account = await new Client(server.url).signup();
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: SIBLING },
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    expect(login.status).toBe(403);
    expect(login.headers.getSetCookie()).toEqual([]);
    const visitor = new Client(server.url);
    const signup = await visitor.post("/api/auth/signup", { email: "csrf-signup@example.com", password: "correct horse battery", name: "csrf-signup" }, {
      "sec-fetch-site": "same-site",
    });
    expect(signup.status).toBe(403);
    expect(visitor.cookie).toBeUndefined();
    // Nothing was created: the same sign-up from Slipway's own page goes through.
    const own = await visitor.post("/api/auth/signup", { email: "csrf-signup@example.com", password: "correct horse battery", name: "csrf-signup" }, { origin: server.url });
    expect(own.status).toBe(201);
  });

  it("refuses the GraphQL login mutation from another origin with forbidden and no cookie", async () => {
    const account = await new Client(server.url).signup();
    const visitor = new Client(server.url);
    const login = "mutation($input: LoginInput!) { login(input: $input) { ... on AuthPayload { user { name } } } }";
    const res = await visitor.graphql(login, { input: { email: account.email, password: account.password } }, { origin: SIBLING });
    expect(res.body.errors?.[0].extensions?.code).toBe("forbidden");
    expect(visitor.cookie).toBeUndefined();
    const own = await visitor.graphql(login, { input: { email: account.email, password: account.password } }, { origin: server.url });
    expect(own.body.data.login.user.name).toBe(account.name);
    expect(visitor.cookie).toBeDefined();
  });

  it("refuses a form POST to /graphql with 415, so no HTML form can reach the login mutation", async () => {
    const account = await new Client(server.url).signup();
    const query = `mutation { login(input: {email: "${account.email}", password: "${account.password}"}) { __typename } }`;
    for (const [type, body] of [
      ["application/x-www-form-urlencoded", new URLSearchParams({ query }).toString()],
      ["multipart/form-data; boundary=x", `--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n${query}\r\n--x--\r\n`],
      ["text/plain", JSON.stringify({ query })],
    ]) {
      const res = await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": type }, body });
      expect([type, res.status]).toEqual([type, 415]);
      expect((await res.json()).errors[0].extensions.code).toBe("unsupported_media_type");
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    const json = await new Client(server.url).graphql("{ __typename }", undefined, { accept: "application/graphql-response+json" });
    expect(json.status).toBe(200);
  });
});

describe("the session cookie", () => {
  it("is host-only (no Domain attribute), so the apps' subdomains never receive it", async () => {
    const res = await fetch(`${server.url}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "host-only@example.com", password: "correct horse battery", name: "host-only" }),
    });
    const [cookie] = res.headers.getSetCookie();
    expect(cookie).toMatch(/^slipway_session=/);
    expect(cookie).not.toMatch(/;\s*domain=/i);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
  });
});

describe("Bearer tokens from other origins", () => {
  it("are unaffected by the cookie rule: reads and writes work with any Origin", async () => {
    const { user, client } = await userWithClient(server);
    const tokens = await issueTokens(server, user, client, "read:user write:user");
    const api = bearer(server, tokens.access_token);
    expect((await api.get("/api/me", { origin: SIBLING })).status).toBe(200);
    const created = await api.post("/api/oauth/clients", { name: "From elsewhere", description: "x", redirectUris: ["http://127.0.0.1:9/cb"] }, { origin: SIBLING });
    expect(created.status).toBe(201);
  });
});

describe("the WebSocket handshake follows the same rule", () => {
  it("refuses a cookie-carrying handshake without Origin whose Referer is another origin", async () => {
    const { client } = await signedIn();
    const headers = { cookie: client.cookie!, referer: `${SIBLING}/page` };
    class WithHeaders extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    }
    const ws = createClient({ url: `${server.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: WithHeaders, retryAttempts: 0 });
    const outcome = new Promise((resolve, reject) => {
      ws.subscribe({ query: "subscription { viewer { user { name } } }" }, { next: resolve, error: reject, complete: () => {} });
    });
    await expect(outcome).rejects.toMatchObject({ code: 4403, reason: "Forbidden" });
    await ws.dispose();
  });
});

describe("CORS_ORIGINS", () => {
  const APP = "https://app.example.com";
  let cors: TestServer;
  beforeAll(async () => {
    cors = await startServer({ CORS_ORIGINS: `${APP}, https://other.example.com` });
  });
  afterAll(() => cors?.close());

  it("lets a listed origin call with a Bearer token, never with credentials", async () => {
    const preflight = await fetch(`${cors.url}/api/me`, {
      method: "OPTIONS",
      headers: { origin: APP, "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(APP);
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/authorization/i);
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
    const res = await fetch(`${cors.url}/graphql?query=${encodeURIComponent("{ __typename }")}`, { headers: { origin: APP } });
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("vary")).toMatch(/origin/i);
  });

  it("sends nothing to an origin that is not listed, and the cookie still does not work for a listed one", async () => {
    const res = await fetch(`${cors.url}/graphql?query=${encodeURIComponent("{ __typename }")}`, { headers: { origin: "https://evil.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const client = new Client(cors.url);
    await client.signup();
    expect((await client.get("/api/me", { origin: APP })).status).toBe(401);
  });
});
