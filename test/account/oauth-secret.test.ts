// POST /api/oauth/clients/:clientId/secret: a confidential client's new secret, shown once; the old one keeps
// working until its owner deletes it (DELETE /api/oauth/clients/:clientId/secrets/:secretId).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { form, registerClient, startOAuthServer } from "../oauth/helpers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server?.close());

/** Probes a secret: /oauth/introspect authenticates the client first (401 invalid_client for a wrong secret). */
function introspectWith(clientId: string, secret: string) {
  return form(new Client(server.url), "/oauth/introspect", { token: "x", client_id: clientId, client_secret: secret });
}

describe("POST /api/oauth/clients/:clientId/secret", () => {
  it("answers 401 without credentials, 404 for another user's or an unknown client, 400 for a public client", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const app = await registerClient(owner);
    expect((await new Client(server.url).post(`/api/oauth/clients/${app.clientId}/secret`)).status).toBe(401);
    const stranger = new Client(server.url);
    await stranger.signup();
    const theirs = await stranger.post(`/api/oauth/clients/${app.clientId}/secret`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe("not_found");
    expect((await owner.post("/api/oauth/clients/svc_unknown/secret")).status).toBe(404);
    const cli = await registerClient(owner, { public: true, redirectUris: ["http://127.0.0.1/callback"] });
    const pub = await owner.post(`/api/oauth/clients/${cli.clientId}/secret`);
    expect(pub.status).toBe(400);
    expect(pub.body.error.code).toBe("invalid_request");
    // The stranger's attempt left the secret working.
    expect((await introspectWith(app.clientId, app.clientSecret!)).status).toBe(200);
  });

  it("returns a new secret once; the old one works until it is deleted, then stops at once", async () => {
    const owner = new Client(server.url);
    await owner.signup();
    const app = await registerClient(owner);
    expect((await introspectWith(app.clientId, app.clientSecret!)).status).toBe(200);
    const res = await owner.post(`/api/oauth/clients/${app.clientId}/secret`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ clientId: app.clientId, name: app.name, public: false });
    expect(res.body.clientSecret).toMatch(/^\S{32,}$/);
    expect(res.body.clientSecret).not.toBe(app.clientSecret);
    expect((await introspectWith(app.clientId, app.clientSecret!)).status).toBe(200);
    expect((await introspectWith(app.clientId, res.body.clientSecret)).status).toBe(200);
    // Never shown again.
    const listed = await owner.get("/api/oauth/clients");
    expect(JSON.stringify(listed.body)).not.toContain(res.body.clientSecret);
    const detail = await owner.get(`/api/oauth/clients/${app.clientId}`);
    expect(JSON.stringify(detail.body)).not.toContain(res.body.clientSecret);
    const old = detail.body.secrets.find((secret: { lastFour: string }) => secret.lastFour === app.clientSecret!.slice(-4));
    expect((await owner.request("DELETE", `/api/oauth/clients/${app.clientId}/secrets/${old.id}`)).status).toBe(200);
    expect((await introspectWith(app.clientId, app.clientSecret!)).status).toBe(401);
    expect((await introspectWith(app.clientId, res.body.clientSecret)).status).toBe(200);
  });
});
