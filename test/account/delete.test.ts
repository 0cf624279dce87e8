// DELETE /api/me {confirm}: the account goes with its apps (stopped, releases removed), env vars, databases,
// files, OAuth clients and tokens, sessions, quota and limit requests; only audit entries remain.
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, FIXTURES, requestApp, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { verifyEmail } from "../helpers/accounts.ts";
import { bearer, issueTokens, registerClient } from "../oauth/helpers.ts";
import { uploadFile } from "../cdn/helpers.ts";
import { edgeLinkKey } from "../../server/services/cdn-layout.ts";

const ADMIN = "delete-admin@example.com";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ ADMIN_EMAILS: ADMIN, DEFAULT_REQUESTS_PER_MINUTE: "100000" });
});
afterAll(() => server?.close());

describe("DELETE /api/me", () => {
  it("answers 401 without credentials", async () => {
    const res = await new Client(server.url).request("DELETE", "/api/me", { json: { confirm: "anyone" } });
    expect(res.status).toBe(401);
  });

  it("refuses a missing or wrong confirmation with 400 and keeps the account", async () => {
    const client = new Client(server.url);
    const { name } = await client.signup();
    const missing = await client.request("DELETE", "/api/me", { json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields.confirm).toBeDefined();
    const wrong = await client.request("DELETE", "/api/me", { json: { confirm: `${name}x` } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.fields.confirm).toContain(name);
    expect((await client.get("/api/me")).status).toBe(200);
  });

  it("is for a dashboard session only: an OAuth token, even with write:user, gets 403", async () => {
    const owner = new Client(server.url);
    const { name } = await owner.signup();
    const app = await registerClient(owner);
    const tokens = await issueTokens(server, owner, app, "read:user write:user");
    const res = await bearer(server, tokens.access_token).request("DELETE", "/api/me", { json: { confirm: name } });
    expect(res.status).toBe(403);
    expect((await owner.get("/api/me")).status).toBe(200);
  });

  it("the last administrator cannot delete themself (409); with another admin they can", async () => {
    const admin = new Client(server.url);
    const { name } = await admin.signup({ email: ADMIN });
    expect((await verifyEmail(server, ADMIN)).role).toBe("ADMIN");
    const res = await admin.request("DELETE", "/api/me", { json: { confirm: name } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/last administrator/);
    const other = new Client(server.url);
    const second = await other.signup();
    await server.slipway.platform.services.accounts.setRole(second.email, "ADMIN");
    expect((await admin.request("DELETE", "/api/me", { json: { confirm: name } })).status).toBe(204);
  });

  it("a user deletes their account on a platform that has no administrator at all", async () => {
    const { db } = server.slipway.platform;
    const admins = await db.user.findMany({ where: { role: "ADMIN" }, select: { id: true } });
    await db.user.updateMany({ where: { role: "ADMIN" }, data: { role: "USER" } });
    try {
      const client = new Client(server.url);
      const { name } = await client.signup();
      expect((await client.request("DELETE", "/api/me", { json: { confirm: name } })).status).toBe(204);
    } finally {
      await db.user.updateMany({ where: { id: { in: admins.map((a) => a.id) } }, data: { role: "ADMIN" } });
    }
  });

  it("two last administrators deleting their accounts at the same moment: one goes, the other is refused", async () => {
    const { db } = server.slipway.platform;
    const admins = [new Client(server.url), new Client(server.url)];
    const names: string[] = [];
    for (const client of admins) {
      const { name, email } = await client.signup();
      await server.slipway.platform.services.accounts.setRole(email, "ADMIN");
      names.push(name);
    }
    await db.user.updateMany({ where: { role: "ADMIN", name: { notIn: names } }, data: { role: "USER" } });
    const results = await Promise.all(admins.map((client, i) => client.request("DELETE", "/api/me", { json: { confirm: names[i] } })));
    expect(results.map((r) => r.status).sort()).toEqual([204, 409]);
    const refused = admins[results.findIndex((r) => r.status === 409)];
    // Refused means untouched: still signed in, still an administrator.
    const me = await refused.get("/api/me");
    expect(me.status).toBe(200);
    expect((await db.user.findUniqueOrThrow({ where: { name: names[admins.indexOf(refused)] } })).role).toBe("ADMIN");
    expect(await db.user.count({ where: { role: "ADMIN", status: "ACTIVE" } })).toBe(1);
  });

  it("deletes every record of the user, stops their running app and removes its releases", async () => {
    const { db, storage, engine } = server.slipway.platform;
    const owner = new Client(server.url);
    const { name, user } = await owner.signup();
    const second = new Client(server.url);
    expect((await second.post("/api/auth/login", { email: `${name}@example.com`, password: "correct horse battery" })).status).toBe(200);

    // A running app with env vars and a database record.
    const slug = `gone-${process.pid}`;
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    expect((await owner.post(`/api/apps/${slug}/env`, { GREETING: "hello" })).status).toBe(200);
    const live = await deploy(owner, slug, await zipFolder(path.join(FIXTURES, "node-plain")));
    expect(live.status).toBe("LIVE");
    const host = `${slug}.localhost`;
    expect((await requestApp(server.url, host)).status).toBe(200);
    const target = engine.routes.lookup(slug);
    expect(target.kind).toBe("proxy");
    const appRow = await db.app.findUniqueOrThrow({ where: { slug } });
    await db.resource.create({ data: { appId: appRow.id, type: "sqlite", name: "main", envKey: "DATABASE_URL", connectionSecret: "file:x" } });
    const appFolder = engine.paths.app(appRow.id);
    expect(fs.existsSync(appFolder)).toBe(true);

    // A CDN file in the object storage.
    const storageKey = `files/${user.id}/${Date.now()}`;
    await storage.put(storageKey, Readable.from(Buffer.from("content")), { contentType: "text/plain" });
    await db.file.create({ data: { ownerId: user.id, name: "a.txt", size: 7n, contentType: "text/plain", sha256: "0".repeat(64), storageKey } });
    // And an uploaded one, with its link for the edge (services/cdn-layout.ts).
    const uploaded = (await uploadFile(owner, "uploaded", "b.png", "image/png")).body;
    const linkKey = edgeLinkKey(uploaded)!;
    expect(await storage.stat(linkKey)).not.toBeNull();

    // An OAuth client of theirs that another user authorized, and an app they authorized themselves.
    const ownClient = await registerClient(owner);
    const fan = new Client(server.url);
    await fan.signup();
    const fanTokens = await issueTokens(server, fan, ownClient);
    const developer = new Client(server.url);
    await developer.signup();
    const otherClient = await registerClient(developer);
    const ownTokens = await issueTokens(server, owner, otherClient);
    expect((await bearer(server, ownTokens.access_token).get("/api/me")).status).toBe(200);
    expect((await bearer(server, fanTokens.access_token).get("/api/me")).status).toBe(200);

    await db.quotaRequest.create({ data: { userId: user.id, reason: "more", maxApps: 10 } });

    const res = await owner.request("DELETE", "/api/me", { json: { confirm: name } });
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("slipway_session=;"))).toBe(true);

    // Nothing of the user is left in any table.
    const userId = user.id;
    const counts = {
      users: await db.user.count({ where: { id: userId } }),
      quota: await db.quota.count({ where: { userId } }),
      quotaRequests: await db.quotaRequest.count({ where: { userId } }),
      sessions: await db.session.count({ where: { userId } }),
      accountTokens: await db.accountToken.count({ where: { userId } }),
      apps: await db.app.count({ where: { OR: [{ ownerId: userId }, { slug }] } }),
      deployments: await db.deployment.count({ where: { appId: appRow.id } }),
      envVars: await db.envVar.count({ where: { appId: appRow.id } }),
      logLines: await db.logLine.count({ where: { appId: appRow.id } }),
      resources: await db.resource.count({ where: { appId: appRow.id } }),
      files: await db.file.count({ where: { ownerId: userId } }),
      oauthClients: await db.oAuthClient.count({ where: { ownerId: userId } }),
      oauthTokens: await db.oAuthToken.count({ where: { OR: [{ userId }, { client: { clientId: ownClient.clientId } }] } }),
      oauthCodes: await db.oAuthAuthorizationCode.count({ where: { userId } }),
      oauthConsents: await db.oAuthConsent.count({ where: { userId } }),
      deviceCodes: await db.oAuthDeviceCode.count({ where: { userId } }),
    };
    expect(counts).toEqual(Object.fromEntries(Object.keys(counts).map((k) => [k, 0])));
    expect(await db.oAuthClient.count({ where: { clientId: ownClient.clientId } })).toBe(0);

    // The app no longer answers: its process is gone and its name is unknown; its releases are removed.
    expect(engine.routes.lookup(slug).kind).not.toBe("proxy");
    expect((await requestApp(server.url, host)).status).toBe(404);
    if (target.kind === "proxy") await expect(fetch(`http://${target.upstreams[0].host}:${target.upstreams[0].port}/`)).rejects.toThrow();
    expect(fs.existsSync(appFolder)).toBe(false);
    expect(await storage.stat(storageKey)).toBeNull();
    expect(await storage.stat(linkKey)).toBeNull();

    // Every credential of the account stops at once.
    expect((await owner.get("/api/me")).status).toBe(401);
    expect((await second.get("/api/me")).status).toBe(401);
    expect((await bearer(server, ownTokens.access_token).get("/api/me")).status).toBe(401);
    expect((await bearer(server, fanTokens.access_token).get("/api/me")).status).toBe(401);

    // Only the audit log remembers, by name.
    const entry = await db.auditEvent.findFirstOrThrow({ where: { action: "account.delete", actorId: userId } });
    expect(entry).toMatchObject({ actorName: name, targetType: "user", targetId: userId, ip: "127.0.0.1" });
    // The name and email are free again.
    expect((await new Client(server.url).signup({ name })).name).toBe(name);
  });
});
