// Helpers for the OAuth tests: register clients, drive the real consent form over HTTP with a session
// cookie (GET the page, read its hidden inputs, POST the decision), and configure openid-client.
import * as oidc from "openid-client";
import { expect } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

export const ADMIN_EMAIL = "oauth-admin@example.com";
export const REDIRECT = "http://127.0.0.1:9/callback";

/** A server whose rate limit stays out of the way of many token requests from one address. */
export function startOAuthServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", ADMIN_EMAILS: ADMIN_EMAIL, ...env });
}

export interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
  redirectUris: string[];
  public: boolean;
  name: string;
}

export async function registerClient(owner: Client, input: Partial<{ name: string; description: string; redirectUris: string[]; public: boolean }> = {}) {
  const res = await owner.post("/api/oauth/clients", { name: "Test App", description: "Does tests", redirectUris: [REDIRECT], ...input });
  if (res.status !== 201) throw new Error(`client registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as RegisteredClient;
}

/** A signed-in user with a client they registered. */
export async function userWithClient(server: TestServer, input: Parameters<typeof registerClient>[1] = {}) {
  const user = new Client(server.url);
  const account = await user.signup();
  const client = await registerClient(user, input);
  return { user, account, client };
}

export function decodeEntities(value: string): string {
  return value.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))).replace(/&amp;/g, "&");
}

/** The hidden inputs of the page's first form (the decision form; the switch-account form comes after it). */
export function hiddenInputs(html: string): Record<string, string> {
  const inputs: Record<string, string> = {};
  const form = html.slice(0, html.indexOf("</form>") + 1 || undefined);
  for (const match of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) inputs[decodeEntities(match[1])] = decodeEntities(match[2]);
  return inputs;
}

export function form(client: Client, path: string, params: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
  return client.request("POST", path, { body: body.toString(), headers: { "content-type": "application/x-www-form-urlencoded", ...headers } });
}

export function basic(clientId: string, secret: string) {
  return { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}` };
}

export function authorizePath(params: Record<string, string | undefined>) {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
  return `/oauth/authorize?${query}`;
}

/** GETs the authorization page; if the consent page is shown, posts `decision` from its form. Returns the final redirect. */
export async function authorize(user: Client, params: Record<string, string | undefined>, decision: "approve" | "deny" = "approve") {
  const page = await user.get(authorizePath(params));
  if (page.status === 302) return { consentShown: false, location: new URL(page.headers.get("location")!) };
  expect(page.status, String(page.body).slice(0, 500)).toBe(200);
  const posted = await form(user, "/oauth/authorize", { ...hiddenInputs(page.body), decision });
  expect(posted.status, String(posted.body).slice(0, 500)).toBe(303);
  return { consentShown: true, location: new URL(posted.headers.get("location")!) };
}

/** openid-client configured from our RFC 8414 metadata. */
export async function discover(server: TestServer, client: RegisteredClient, auth?: "basic" | "post") {
  const method = !client.clientSecret ? oidc.None() : auth === "post" ? oidc.ClientSecretPost(client.clientSecret) : oidc.ClientSecretBasic(client.clientSecret);
  return oidc.discovery(new URL(server.url), client.clientId, undefined, method, { algorithm: "oauth2", execute: [oidc.allowInsecureRequests] });
}

export { oidc };

/** Authorizes a confidential client for `scope` (null: none sent) through the consent form and exchanges the code. */
export async function issueTokens(server: TestServer, user: Client, client: RegisteredClient, scope: string | null = "read:user") {
  const { location } = await authorize(user, { client_id: client.clientId, redirect_uri: client.redirectUris[0], response_type: "code", scope: scope ?? undefined });
  const code = location.searchParams.get("code");
  if (!code) throw new Error(`authorization failed: ${location}`);
  const res = await form(new Client(server.url), "/oauth/token", {
    grant_type: "authorization_code", code, redirect_uri: client.redirectUris[0], client_id: client.clientId, client_secret: client.clientSecret!,
  });
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { access_token: string; refresh_token: string; scope: string; expires_in: number; token_type: string };
}

/** A Client that calls the API with a Bearer token. */
export function bearer(server: TestServer, accessToken: string): Client {
  const api = new Client(server.url);
  api.token = accessToken;
  return api;
}

/**
 * Runs `work` while `service[method]` answers 100 ms late, as under load, so that parallel requests overlap
 * even on SQLite (where they would otherwise run one after another); the method is restored afterwards.
 */
export async function whileSlow<S extends object, K extends keyof S, T>(service: S, method: K, work: () => Promise<T>): Promise<T> {
  const original = service[method] as (...args: unknown[]) => Promise<unknown>;
  service[method] = (async (...args: unknown[]) => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return original(...args);
  }) as S[K];
  try {
    return await work();
  } finally {
    service[method] = original as S[K];
  }
}

/**
 * Starts `exchange` (a token request for a new grant) while token storage is slow, and meanwhile the user
 * revokes the client in the dashboard: the answer, and every token row of the client afterwards.
 */
export async function exchangeWhileRevoking(server: TestServer, user: Client, clientId: string, exchange: () => Promise<{ status: number; body: any }>) {
  const answer = await whileSlow(server.slipway.platform.services.oauthGrants, "issueTokens", async () => {
    const exchanging = exchange();
    await new Promise((resolve) => setTimeout(resolve, 40));
    const revoked = await user.graphql(`mutation($id: String!) { revokeAuthorizedApp(clientId: $id) }`, { id: clientId });
    expect(revoked.body.data.revokeAuthorizedApp).toBe(true);
    return exchanging;
  });
  const rows = await server.slipway.platform.db.oAuthToken.findMany({ where: { client: { clientId } } });
  return { answer, rows };
}
