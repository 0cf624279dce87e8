// Registering and managing OAuth clients (REST and GraphQL), the authorized-apps list, and scope
// enforcement for Bearer callers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../server/auth/secrets.ts";
import { verifyEmail } from "../helpers/accounts.ts";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { ADMIN_EMAIL, authorize, bearer, form, issueTokens, REDIRECT, registerClient, startOAuthServer, userWithClient } from "./helpers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server?.close());

const CLIENT_FIELDS = `clientId name description redirectUris public createdAt`;

describe("REST /api/oauth/clients: access", () => {
  it("answers 401 without credentials", async () => {
    const anonymous = new Client(server.url);
    for (const res of [await anonymous.get("/api/oauth/clients"), await anonymous.post("/api/oauth/clients", { name: "x", redirectUris: [] })]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthenticated");
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="slipway"');
    }
  });

  it("lets a read:user token list but not register: 403 insufficient_scope (write:user)", async () => {
    const { user, client } = await userWithClient(server);
    const tokens = await issueTokens(server, user, client, "read:user");
    const api = bearer(server, tokens.access_token);
    expect((await api.get("/api/oauth/clients")).status).toBe(200);
    const create = await api.post("/api/oauth/clients", { name: "Sneaky", redirectUris: [REDIRECT] });
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe("insufficient_scope");
    expect(create.headers.get("www-authenticate")).toContain('scope="write:user"');
    const graphql = await api.graphql(`mutation { createOAuthClient(input: {name: "x", redirectUris: []}) { __typename } }`);
    expect(graphql.body.errors?.[0].extensions?.code).toBe("insufficient_scope");
  });

  it("lets a write:user token register, and a read:apps-only token not even list", async () => {
    const { user, client } = await userWithClient(server);
    const writer = bearer(server, (await issueTokens(server, user, client, "read:user write:user")).access_token);
    expect((await writer.post("/api/oauth/clients", { name: "Made by token", redirectUris: [REDIRECT] })).status).toBe(201);
    const appsOnly = bearer(server, (await issueTokens(server, user, client, "read:apps")).access_token);
    const list = await appsOnly.get("/api/oauth/clients");
    expect(list.status).toBe(403);
    expect(list.body.error.code).toBe("insufficient_scope");
    expect((await appsOnly.get("/oauth/userinfo")).status).toBe(403);
  });
});

describe("REST /api/oauth/clients: registration", () => {
  it("registers a confidential client: 201 with a svc_ id and a secret shown once, stored only as a hash", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const res = await owner.post("/api/oauth/clients", { name: "My App", description: "Does things", redirectUris: [REDIRECT, "https://app.example/cb"] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      clientId: expect.stringMatching(/^svc_[0-9a-f]{24}$/),
      name: "My App",
      description: "Does things",
      redirectUris: [REDIRECT, "https://app.example/cb"],
      public: false,
      createdAt: expect.any(String),
      clientSecret: expect.stringMatching(/^[\w-]{40,}$/),
    });
    const row = await server.slipway.platform.db.oAuthClient.findUniqueOrThrow({ where: { clientId: res.body.clientId }, include: { secrets: true } });
    expect(row.secrets.map((s) => s.secretHash)).toEqual([hashToken(res.body.clientSecret)]);
    expect(JSON.stringify(row)).not.toContain(res.body.clientSecret);
    const list = await owner.get("/api/oauth/clients");
    expect(list.body).toEqual([{ clientId: res.body.clientId, name: "My App", description: "Does things", redirectUris: res.body.redirectUris, public: false, createdAt: res.body.createdAt }]);
  });

  it("registers a public client without a secret (no clientSecret key)", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const res = await owner.post("/api/oauth/clients", { name: "CLI", redirectUris: ["http://localhost:8123/callback"], public: true });
    expect(res.status).toBe(201);
    expect(res.body.public).toBe(true);
    expect(res.body).not.toHaveProperty("clientSecret");
  });

  it("refuses bad names and redirect URIs, naming the field", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const bad = [
      [{ name: "", redirectUris: [REDIRECT] }, "name"],
      [{ name: "x".repeat(101), redirectUris: [REDIRECT] }, "name"],
      [{ name: "App", redirectUris: ["http://app.example/cb"] }, "redirectUris"],
      [{ name: "App", redirectUris: ["https://app.example/cb#frag"] }, "redirectUris"],
      [{ name: "App", redirectUris: ["/relative"] }, "redirectUris"],
      [{ name: "App", redirectUris: ["javascript:alert(1)"] }, "redirectUris"],
      [{ name: "App", redirectUris: Array.from({ length: 11 }, (_, i) => `https://app.example/${i}`) }, "redirectUris"],
    ] as const;
    for (const [input, field] of bad) {
      const res = await owner.post("/api/oauth/clients", input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.details.fields).toHaveProperty(field);
    }
    for (const ok of ["http://127.0.0.1:4000/cb", "http://[::1]/cb", "http://localhost/cb", "https://app.example/cb?tenant=1", "https://app.example/caf%C3%A9"]) {
      expect((await owner.post("/api/oauth/clients", { name: "App", redirectUris: [ok] })).status, ok).toBe(201);
    }
  });

  it("accepts only RFC 3986 URIs without wildcards or fragments, on registration and on update, naming the field and the URI", async () => {
    const { user, client } = await userWithClient(server);
    const update = `mutation($id: String!, $input: UpdateOAuthClientInput!) { updateOAuthClient(clientId: $id, input: $input) {
      __typename ... on InvalidRequestError { message fields { field message } } } }`;
    const bad: [string, RegExp][] = [
      ["https://app.example/cb/✓", /RFC 3986.*register "https:\/\/app\.example\/cb\/%E2%9C%93"/],
      ["https://exämple.com/cb", /RFC 3986.*register "https:\/\/xn--exmple-cua\.com\/cb"/],
      ["https://app.example/c\nb", /RFC 3986/],
      ["https://app.example/c b", /RFC 3986/],
      ["https://app.example/%zz", /RFC 3986/],
      ["https://*/cb", /wildcard/],
      ["https://*.example.com/cb", /wildcard/],
      ["http://127.0.0.1:*/cb", /wildcard/],
      ["https://app.example/cb#", /fragment/],
      ["https://app.example/cb#section", /fragment/],
    ];
    for (const [uri, problem] of bad) {
      const created = await user.post("/api/oauth/clients", { name: "App", redirectUris: [REDIRECT, uri] });
      expect(created.status, uri).toBe(400);
      expect(created.body.error.code).toBe("invalid_request");
      expect(created.body.error.details.fields.redirectUris, uri).toMatch(problem);
      expect(created.body.error.details.fields.redirectUris).toContain(uri);
      const updated = (await user.graphql(update, { id: client.clientId, input: { redirectUris: [uri] } })).body.data.updateOAuthClient;
      expect(updated.__typename, uri).toBe("InvalidRequestError");
      expect(updated.fields, uri).toEqual([{ field: "redirectUris", message: expect.stringMatching(problem) }]);
    }
    const row = await server.slipway.platform.db.oAuthClient.findUniqueOrThrow({ where: { clientId: client.clientId } });
    expect(row.redirectUris).toEqual([REDIRECT]);
  });
});

describe("homepage, logo and every bad redirect URI at once", () => {
  it("names every bad redirect URI in one answer, and checks the homepage", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const bad = ["http://app.example/cb", "https://app.example/cb#x", "https://*.example.com/cb"];
    const res = await owner.post("/api/oauth/clients", { name: "App", redirectUris: [REDIRECT, ...bad], homepageUrl: "ftp://app.example" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields.redirectUris).toMatch(/^3 redirect URIs need fixing/);
    for (const uri of bad) expect(res.body.error.details.fields.redirectUris).toContain(uri);
    expect(res.body.error.details.fields.homepageUrl).toMatch(/https URL/);
  });

  it("takes a logo only from the owner's own CDN images, and clears it with \"\"", async () => {
    const { user, client } = await userWithClient(server);
    const upload = async (who: Client, name: string, type: string) => {
      const body = new FormData();
      body.append("file", new Blob([Buffer.from("89504e470d0a1a0a", "hex")], { type }), name);
      const res = await who.request("POST", "/api/cdn", { body });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const stranger = new Client(server.url);
    await stranger.signup();
    const foreign = await upload(stranger, "theirs.png", "image/png");
    const text = await upload(user, "notes.txt", "text/plain");
    const logo = await upload(user, "logo.png", "image/png");
    const update = `mutation($id: String!, $input: UpdateOAuthClientInput!) { updateOAuthClient(clientId: $id, input: $input) {
      __typename ... on OAuthClient { homepageUrl logoFileId logoUrl } ... on InvalidRequestError { fields { field message } } } }`;
    const run = async (input: object) => (await user.graphql(update, { id: client.clientId, input })).body.data.updateOAuthClient;
    expect(await run({ logoFileId: foreign })).toMatchObject({ __typename: "InvalidRequestError", fields: [{ field: "logoFileId" }] });
    expect(await run({ logoFileId: text })).toMatchObject({ __typename: "InvalidRequestError", fields: [{ field: "logoFileId", message: expect.stringMatching(/not a PNG/) }] });
    expect(await run({ logoFileId: logo, homepageUrl: "https://app.example" })).toEqual({ __typename: "OAuthClient", homepageUrl: "https://app.example", logoFileId: logo, logoUrl: `/api/cdn/${logo}` });
    expect(await run({ logoFileId: "", homepageUrl: "" })).toEqual({ __typename: "OAuthClient", homepageUrl: "", logoFileId: null, logoUrl: null });
    // Deleting the file takes the logo away with it.
    expect(await run({ logoFileId: logo })).toMatchObject({ logoFileId: logo });
    expect((await user.request("DELETE", `/api/cdn/${logo}`)).status).toBeLessThan(300);
    expect((await user.get(`/api/oauth/clients/${client.clientId}`)).body).toMatchObject({ logoFileId: null, logoUrl: null });
  });
});

describe("GraphQL: managing clients", () => {
  it("updates, rotates the secret of, and deletes only your own clients", async () => {
    const { user, client } = await userWithClient(server);
    const stranger = new Client(server.url);
    await stranger.signup();
    const update = `mutation($id: String!, $input: UpdateOAuthClientInput!) { updateOAuthClient(clientId: $id, input: $input) {
      __typename ... on OAuthClient { ${CLIENT_FIELDS} } ... on Error { code } } }`;
    const foreign = await stranger.graphql(update, { id: client.clientId, input: { name: "Hijacked" } });
    expect(foreign.body.data.updateOAuthClient).toEqual({ __typename: "NotFoundError", code: "not_found" });

    const renamed = await user.graphql(update, { id: client.clientId, input: { name: "Renamed", redirectUris: ["https://new.example/cb"] } });
    expect(renamed.body.data.updateOAuthClient).toMatchObject({ __typename: "OAuthClient", name: "Renamed", redirectUris: ["https://new.example/cb"], description: "Does tests" });
    const invalid = await user.graphql(update, { id: client.clientId, input: { redirectUris: ["ftp://x"] } });
    expect(invalid.body.data.updateOAuthClient).toMatchObject({ __typename: "InvalidRequestError", code: "invalid_request" });

    const rotate = `mutation($id: String!) { rotateOAuthClientSecret(clientId: $id) { __typename ... on OAuthClientWithSecret { clientSecret } ... on Error { code } } }`;
    const device = (secret: string) => form(new Client(server.url), "/api/oauth/device", { client_id: client.clientId, client_secret: secret });
    // Used just before, so a cached authentication would still accept it: rotation and deletion must end it at once.
    expect((await device(client.clientSecret!)).status).toBe(200);
    expect((await stranger.graphql(rotate, { id: client.clientId })).body.data.rotateOAuthClientSecret.code).toBe("not_found");
    const rotated = (await user.graphql(rotate, { id: client.clientId })).body.data.rotateOAuthClientSecret;
    expect(rotated.clientSecret).not.toBe(client.clientSecret);
    // Rotation adds a secret: the old one works until its owner deletes it.
    expect((await device(client.clientSecret!)).status).toBe(200);
    expect((await device(rotated.clientSecret)).status).toBe(200);
    const secrets = (await user.get(`/api/oauth/clients/${client.clientId}`)).body.secrets;
    expect(secrets.map((s: { lastFour: string }) => s.lastFour)).toEqual([client.clientSecret!.slice(-4), rotated.clientSecret.slice(-4)]);
    expect((await stranger.request("DELETE", `/api/oauth/clients/${client.clientId}/secrets/${secrets[0].id}`)).status).toBe(404);
    expect((await user.request("DELETE", `/api/oauth/clients/${client.clientId}/secrets/${secrets[0].id}`)).status).toBe(200);
    expect((await device(client.clientSecret!)).status).toBe(401);
    expect((await device(rotated.clientSecret)).status).toBe(200);

    const remove = `mutation($id: String!) { deleteOAuthClient(clientId: $id) { __typename ... on OAuthClient { clientId } ... on Error { code } } }`;
    expect((await stranger.graphql(remove, { id: client.clientId })).body.data.deleteOAuthClient.code).toBe("not_found");
    expect((await user.graphql(remove, { id: client.clientId })).body.data.deleteOAuthClient).toEqual({ __typename: "OAuthClient", clientId: client.clientId });
    expect((await user.graphql(`{ oauthClients { clientId } }`)).body.data.oauthClients).toEqual([]);
    expect((await device(rotated.clientSecret)).status).toBe(401);
  });

  it("keeps at most 5 secrets, and says which to delete", async () => {
    const { user, client } = await userWithClient(server);
    for (let i = 0; i < 4; i++) expect((await user.post(`/api/oauth/clients/${client.clientId}/secret`, {})).status).toBe(200);
    const sixth = await user.post(`/api/oauth/clients/${client.clientId}/secret`, {});
    expect(sixth.status).toBe(400);
    expect(sixth.body.error.message).toMatch(/at most 5 secrets: delete one/);
    expect((await user.request("DELETE", `/api/oauth/clients/${client.clientId}/secrets/nope`)).status).toBe(404);
  });

  it("refuses to rotate a public client's secret", async () => {
    const { user, client } = await userWithClient(server, { public: true });
    const res = await user.graphql(`mutation($id: String!) { rotateOAuthClientSecret(clientId: $id) { __typename ... on Error { code } } }`, { id: client.clientId });
    expect(res.body.data.rotateOAuthClientSecret).toEqual({ __typename: "InvalidRequestError", code: "invalid_request" });
  });

  it("deleting a client ends its tokens", async () => {
    const { user, client } = await userWithClient(server);
    const api = bearer(server, (await issueTokens(server, user, client)).access_token);
    expect((await api.get("/oauth/userinfo")).status).toBe(200);
    await user.graphql(`mutation($id: String!) { deleteOAuthClient(clientId: $id) { __typename } }`, { id: client.clientId });
    expect((await api.get("/oauth/userinfo")).status).toBe(401);
  });
});

describe("authorized apps", () => {
  it("lists the apps a user authorized, and revoking one ends its tokens and forgets the consent", async () => {
    const developer = new Client(server.url);
    await developer.signup();
    const app = await registerClient(developer, { name: "Third Party" });
    const user = new Client(server.url);
    await user.signup();
    expect((await user.graphql(`{ authorizedApps { clientId } }`)).body.data.authorizedApps).toEqual([]);
    const tokens = await issueTokens(server, user, app, "read:user read:apps");
    const apps = (await user.graphql(`{ authorizedApps { clientId name scopes authorizedAt } }`)).body.data.authorizedApps;
    expect(apps).toEqual([{ clientId: app.clientId, name: "Third Party", scopes: ["read:user", "read:apps"], authorizedAt: expect.any(String) }]);

    const revoke = await user.graphql(`mutation($id: String!) { revokeAuthorizedApp(clientId: $id) }`, { id: app.clientId });
    expect(revoke.body.data.revokeAuthorizedApp).toBe(true);
    expect((await bearer(server, tokens.access_token).get("/oauth/userinfo")).status).toBe(401);
    const refreshed = await form(new Client(server.url), "/oauth/token", {
      grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: app.clientId, client_secret: app.clientSecret!,
    });
    expect(refreshed.body.error).toBe("invalid_grant");
    expect((await user.graphql(`{ authorizedApps { clientId } }`)).body.data.authorizedApps).toEqual([]);
    const again = await authorize(user, { client_id: app.clientId, redirect_uri: REDIRECT, response_type: "code" });
    expect(again.consentShown).toBe(true);
  });
});

describe("scopes of Bearer tokens", () => {
  it("never grants admin to a non-admin, and carries it for an admin", async () => {
    const admin = new Client(server.url);
    await admin.signup({ email: ADMIN_EMAIL, name: "clients-admin" });
    await verifyEmail(server, ADMIN_EMAIL); // ADMIN_EMAILS applies to a verified address
    const app = await registerClient(admin);
    const tokens = await issueTokens(server, admin, app, "read:user admin");
    expect(tokens.scope).toBe("read:user admin");
    expect((await bearer(server, tokens.access_token).get("/oauth/userinfo")).body.scopes).toEqual(["read:user", "admin"]);

    const { user, client } = await userWithClient(server);
    const { location } = await authorize(user, { client_id: client.clientId, redirect_uri: REDIRECT, response_type: "code", scope: "read:user admin" });
    expect(location.searchParams.get("error")).toBe("invalid_scope");
  });

  it("defaults to read:user when no scope is requested", async () => {
    const { user, client } = await userWithClient(server);
    const tokens = await issueTokens(server, user, client, null);
    expect(tokens.scope).toBe("read:user");
  });
});
