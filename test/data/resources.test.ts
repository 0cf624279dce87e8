// App databases on a platform without POSTGRES_PROVISION_URL (SQLite, the default there) and their backups:
// who may do what on every route, validation, the quota, a sandboxed app using its SQLite database across a
// redeploy, delete, backup and restore, and an app's deletion taking its databases with it.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, waitFor } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { bearer, issueTokens, userWithClient } from "../oauth/helpers.ts";
import { dbAppZip } from "./db-app.ts";

let server: TestServer;
let owner: Client;
let counter = 0;
const newSlug = () => `db-${process.pid}-${++counter}`;

/** The app's runtime log (its system lines say what the runtime did), for a failure's message. */
async function runtimeLog(slug: string): Promise<string> {
  const res = await owner.get(`/api/apps/${slug}/logs?kind=runtime&limit=100`);
  return Array.isArray(res.body) ? res.body.map((l: { line: string }) => l.line).join("\n") : JSON.stringify(res.body);
}

async function newApp(client = owner): Promise<string> {
  const slug = newSlug();
  const res = await client.post("/api/apps", { slug });
  if (res.status !== 201) throw new Error(`app not created: ${JSON.stringify(res.body)}`);
  return slug;
}

/** What the deployed app answers at `path` (JSON), straight through the engine's route to it. */
async function ask(slug: string, p: string): Promise<{ status: number; body: any }> {
  const target = server.slipway.platform.engine.routes.lookup(slug);
  if (target.kind !== "proxy") throw new Error(`${slug} is not running (${target.kind})`);
  const res = await fetch(`http://${target.upstreams[0].host}:${target.upstreams[0].port}${p}`);
  return { status: res.status, body: await res.json() };
}

/** Waits until the app runs with the given database env vars (a restart after an env change). */
function runningWith(slug: string, keys: string[]) {
  return waitFor(
    async () => {
      try {
        const env = await ask(slug, "/env");
        return JSON.stringify(env.body) === JSON.stringify(keys) ? env : null;
      } catch {
        return null;
      }
    },
    30_000,
    `${slug} running with ${keys.join(", ")}`,
  );
}

beforeAll(async () => {
  server = await startServer({ DEFAULT_MAX_APPS: "50", DEFAULT_MAX_DATABASES: "3", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server?.close());

describe("database routes", () => {
  it("refuse anonymous callers on every route", async () => {
    const slug = await newApp();
    const db = await owner.post(`/api/apps/${slug}/resources`, {});
    expect(db.status).toBe(201);
    const backup = await owner.post(`/api/resources/${db.body.id}/backups`);
    expect(backup.status).toBe(201);
    const anonymous = new Client(server.url);
    const attempts = await Promise.all([
      anonymous.post(`/api/apps/${slug}/resources`, {}),
      anonymous.request("DELETE", `/api/resources/${db.body.id}`),
      anonymous.get(`/api/resources/${db.body.id}/backups`),
      anonymous.post(`/api/resources/${db.body.id}/backups`),
      anonymous.get(`/api/resources/${db.body.id}/backups/${backup.body.id}`),
      anonymous.post(`/api/resources/${db.body.id}/backups/${backup.body.id}/restore`),
    ]);
    expect(attempts.map((r) => r.status)).toEqual(Array(attempts.length).fill(401));
    expect(attempts.map((r) => r.body.error?.code)).toEqual(Array(attempts.length).fill("unauthenticated"));
    const reveal = await anonymous.graphql(`query($id: ID!) { revealResourceUrl(id: $id) }`, { id: db.body.id });
    expect(reveal.body.errors?.[0].extensions?.code).toBe("unauthenticated");
  });

  it("hide another user's apps, databases and backups (404 on every route, nothing changed)", async () => {
    const slug = await newApp();
    const db = await owner.post(`/api/apps/${slug}/resources`, {});
    const backup = await owner.post(`/api/resources/${db.body.id}/backups`);
    const stranger = new Client(server.url);
    await stranger.signup();
    const attempts = await Promise.all([
      stranger.post(`/api/apps/${slug}/resources`, {}),
      stranger.request("DELETE", `/api/resources/${db.body.id}`),
      stranger.get(`/api/resources/${db.body.id}/backups`),
      stranger.post(`/api/resources/${db.body.id}/backups`),
      stranger.get(`/api/resources/${db.body.id}/backups/${backup.body.id}`),
      stranger.post(`/api/resources/${db.body.id}/backups/${backup.body.id}/restore`),
      owner.get(`/api/resources/${db.body.id}/backups/nope`),
      owner.post(`/api/resources/${db.body.id}/backups/nope/restore`),
      owner.request("DELETE", `/api/resources/nope`),
    ]);
    expect(attempts.map((r) => r.status)).toEqual(Array(attempts.length).fill(404));
    const reveal = await stranger.graphql(`query($id: ID!) { revealResourceUrl(id: $id) }`, { id: db.body.id });
    expect(reveal.body.errors?.[0].extensions?.code).toBe("not_found");
    // A backup of one database is not reachable through another database of the same owner either.
    const other = await owner.post(`/api/apps/${slug}/resources`, { name: "other" });
    expect((await owner.get(`/api/resources/${other.body.id}/backups/${backup.body.id}`)).status).toBe(404);
    const app = await owner.get(`/api/apps/${slug}`);
    expect(app.body.resources.map((r: { id: string }) => r.id)).toEqual([db.body.id, other.body.id]);
    expect((await owner.get(`/api/resources/${db.body.id}/backups`)).body).toHaveLength(1);
    await owner.request("DELETE", `/api/apps/${slug}`);
  });

  it("need read:apps to read and write:apps to change, for OAuth tokens (the download route included)", async () => {
    const { user, client } = await userWithClient(server);
    const slug = await newApp(user);
    const db = await user.post(`/api/apps/${slug}/resources`, {});
    const backup = await user.post(`/api/resources/${db.body.id}/backups`);
    const reader = bearer(server, (await issueTokens(server, user, client, "read:apps")).access_token);
    expect((await reader.get(`/api/apps/${slug}`)).body.resources).toHaveLength(1);
    expect((await reader.get(`/api/resources/${db.body.id}/backups`)).status).toBe(200);
    expect((await reader.get(`/api/resources/${db.body.id}/backups/${backup.body.id}`)).status).toBe(200);
    const writes = await Promise.all([
      reader.post(`/api/apps/${slug}/resources`, {}),
      reader.request("DELETE", `/api/resources/${db.body.id}`),
      reader.post(`/api/resources/${db.body.id}/backups`),
      reader.post(`/api/resources/${db.body.id}/backups/${backup.body.id}/restore`),
    ]);
    expect(writes.map((r) => [r.status, r.body.error.code])).toEqual(Array(4).fill([403, "insufficient_scope"]));
    const userOnly = bearer(server, (await issueTokens(server, user, client, "read:user")).access_token);
    const download = await userOnly.get(`/api/resources/${db.body.id}/backups/${backup.body.id}`);
    expect([download.status, download.body.error.code]).toEqual([403, "insufficient_scope"]);
    expect(download.headers.get("www-authenticate")).toContain('scope="read:apps"');
  });

  it("validate the type and name, and say when PostgreSQL is not available", async () => {
    const slug = await newApp();
    const bad = await owner.post(`/api/apps/${slug}/resources`, { type: "mysql", name: "Bad Name" });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.details.fields).sort()).toEqual(["name", "type"]);
    const pg = await owner.post(`/api/apps/${slug}/resources`, { type: "postgres" });
    expect(pg.status).toBe(400);
    expect(pg.body.error.message).toMatch(/POSTGRES_PROVISION_URL/);
    // No body at all is a database with the defaults.
    const first = await owner.post(`/api/apps/${slug}/resources`);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ type: "sqlite", name: "main", envKey: "DATABASE_URL" });
    expect((await owner.post(`/api/apps/${slug}/resources`, { name: "main" })).status).toBe(409);
    const second = await owner.post(`/api/apps/${slug}/resources`, { name: "cache" });
    expect(second.body).toMatchObject({ envKey: "DATABASE_URL_CACHE" });
    const types = await owner.graphql(`{ databaseTypes }`);
    expect(types.body.data.databaseTypes).toEqual(["sqlite"]);
    await owner.request("DELETE", `/api/apps/${slug}`);
  });

  it("refuse a database past maxDatabases with 403 quota_exceeded, and count a deleted one out", async () => {
    const client = new Client(server.url);
    await client.signup();
    const slug = await newApp(client);
    // Four at once against a quota of three: exactly three are made, never a fourth.
    const all = await Promise.all(["a", "b", "c", "x"].map((name) => client.post(`/api/apps/${slug}/resources`, { name })));
    expect(all.map((r) => r.status).sort()).toEqual([201, 201, 201, 403]);
    const ids = all.filter((r) => r.status === 201).map((r) => r.body.id as string);
    const over = await client.post(`/api/apps/${slug}/resources`, { name: "d" });
    expect(over.status).toBe(403);
    expect(over.body.error.code).toBe("quota_exceeded");
    expect(over.body.error.message).toMatch(/3 of 3 databases/);
    expect((await client.request("DELETE", `/api/resources/${ids[0]}`)).status).toBe(204);
    expect((await client.post(`/api/apps/${slug}/resources`, { name: "d" })).status).toBe(201);
  });
});

describe("SQLite databases", () => {
  it("are used by a sandboxed app across a redeploy, backed up, restored, and dropped for real", async () => {
    const slug = await newApp();
    const zip = await dbAppZip();
    expect((await deploy(owner, slug, zip)).status).toBe("LIVE");
    const db = await owner.post(`/api/apps/${slug}/resources`, {});
    expect(db.status).toBe(201);
    expect(db.body).toMatchObject({ type: "sqlite", envKey: "DATABASE_URL", name: "main" });
    const url = (await owner.graphql(`query($id: ID!) { revealResourceUrl(id: $id) }`, { id: db.body.id })).body.data.revealResourceUrl;
    expect(url).toBe(`file:/data/${db.body.id}.db`);
    const env = await owner.get(`/api/apps/${slug}/env`);
    expect(env.body).toContainEqual({ key: "DATABASE_URL", value: url });
    // The running app restarted with the new variable, and writes through the /data mount.
    await runningWith(slug, ["DATABASE_URL"]);
    expect((await ask(slug, "/sqlite?add=one")).body).toEqual(["one"]);
    expect((await ask(slug, "/sqlite?add=two")).body).toEqual(["one", "two"]);
    const appId = (await server.slipway.platform.db.app.findUniqueOrThrow({ where: { slug } })).id;
    const file = path.join(server.config.dataDir, "apps", appId, "data", `${db.body.id}.db`);
    expect(fs.existsSync(file)).toBe(true);

    // A redeploy keeps the data.
    const redeployed = await deploy(owner, slug, zip);
    expect(redeployed.status, `${redeployed.error}\n${await runtimeLog(slug)}`).toBe("LIVE");
    expect((await ask(slug, "/sqlite")).body).toEqual(["one", "two"]);

    // Backup, a row lost, restore: the row is back and the app runs again.
    const backup = await owner.post(`/api/resources/${db.body.id}/backups`);
    expect(backup.status).toBe(201);
    expect(backup.body).toMatchObject({ trigger: "manual" });
    expect(backup.body.size).toBeGreaterThan(0);
    const list = await owner.get(`/api/resources/${db.body.id}/backups`);
    expect(list.body).toEqual([backup.body]);
    const download = await owner.get(`/api/resources/${db.body.id}/backups/${backup.body.id}`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename="main-.*\.db"$/);
    expect(String(download.body).startsWith("SQLite format 3")).toBe(true);
    // Not in any folder the app can read: nothing but its database under its data dir.
    expect(fs.readdirSync(path.dirname(file)).filter((f) => !f.startsWith(db.body.id))).toEqual([]);

    expect((await ask(slug, "/sqlite?add=three")).body).toEqual(["one", "three", "two"]);
    const restored = await owner.post(`/api/resources/${db.body.id}/backups/${backup.body.id}/restore`);
    expect(restored.status).toBe(200);
    await runningWith(slug, ["DATABASE_URL"]);
    expect((await ask(slug, "/sqlite")).body).toEqual(["one", "two"]);

    // Delete: file gone, variable gone, backups gone, app restarted without it.
    expect((await owner.request("DELETE", `/api/resources/${db.body.id}`)).status).toBe(204);
    expect(fs.existsSync(file)).toBe(false);
    expect((await owner.get(`/api/apps/${slug}/env`)).body).toEqual([]);
    expect(await server.slipway.platform.db.backup.count({ where: { resourceId: db.body.id } })).toBe(0);
    await runningWith(slug, []);
    expect((await owner.get(`/api/apps/${slug}`)).body.resources).toEqual([]);
  });

  it("are backed up and restored without following the app's links to the platform's files", async () => {
    const slug = await newApp();
    expect((await deploy(owner, slug, await dbAppZip())).status).toBe("LIVE");
    const db = await owner.post(`/api/apps/${slug}/resources`, {});
    await runningWith(slug, ["DATABASE_URL"]);
    expect((await ask(slug, "/sqlite?add=row")).body).toEqual(["row"]);
    const backup = await owner.post(`/api/resources/${db.body.id}/backups`);
    expect(backup.status).toBe(201);

    // The app points the staging name of a restore at a platform file: the restore must not write through it.
    const victim = path.join(server.config.dataDir, "victim.txt");
    fs.writeFileSync(victim, "platform file", { mode: 0o644 });
    expect((await ask(slug, `/link?name=${db.body.id}.db.restore&target=${encodeURIComponent(victim)}`)).body).toBe("linked");
    expect((await owner.post(`/api/resources/${db.body.id}/backups/${backup.body.id}/restore`)).status).toBe(200);
    expect(fs.readFileSync(victim, "utf8")).toBe("platform file");
    await runningWith(slug, ["DATABASE_URL"]);
    expect((await ask(slug, "/sqlite")).body).toEqual(["row"]);
    // The restore's stop came while the rollout for DATABASE_URL may still have been settling: that rollout ends
    // with the stop (on swarm it waited for its deadline, then said the restart failed), and the restart works.
    const runtime = (await owner.get(`/api/apps/${slug}/logs?kind=runtime&limit=500`)).body.map((l: { line: string }) => l.line);
    expect(runtime.filter((line: string) => /Restart failed/.test(line))).toEqual([]);

    // The app replaces its database with a link to the platform's key: the backup is refused, nothing is kept.
    const key = path.join(server.config.dataDir, "secrets", "resources.key");
    expect((await ask(slug, `/link?name=${db.body.id}.db&target=${encodeURIComponent(key)}`)).body).toBe("linked");
    const refused = await owner.post(`/api/resources/${db.body.id}/backups`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/could not be read/);
    expect(refused.body.error.message).not.toContain(server.config.dataDir);
    expect((await owner.get(`/api/resources/${db.body.id}/backups`)).body).toHaveLength(1);
    await owner.request("DELETE", `/api/apps/${slug}`);
  });

  it("go with their app, backups included", async () => {
    const slug = await newApp();
    const db = await owner.post(`/api/apps/${slug}/resources`, {});
    await owner.post(`/api/resources/${db.body.id}/backups`);
    const backup = await server.slipway.platform.db.backup.findFirstOrThrow({ where: { resourceId: db.body.id } });
    expect(await server.slipway.platform.storage.stat(backup.storageKey)).not.toBeNull();
    expect((await owner.request("DELETE", `/api/apps/${slug}`)).status).toBe(204);
    expect(await server.slipway.platform.db.resource.count({ where: { id: db.body.id } })).toBe(0);
    expect(await server.slipway.platform.storage.stat(backup.storageKey)).toBeNull();
  });

  it("are backed up on schedule, and expired backups are deleted", async () => {
    const slug = await newApp();
    const db = await owner.post(`/api/apps/${slug}/resources`, {});
    const { backups } = server.slipway.platform.services;
    const { db: rows } = server.slipway.platform;
    const day = 24 * 3600_000;
    // Not due within a day (24 h by default) of its creation.
    await backups.runScheduled();
    expect((await owner.get(`/api/resources/${db.body.id}/backups`)).body).toEqual([]);
    await rows.resource.update({ where: { id: db.body.id }, data: { createdAt: new Date(Date.now() - 2 * day) } });
    await backups.runScheduled();
    const scheduled = await owner.get(`/api/resources/${db.body.id}/backups`);
    expect(scheduled.body.map((b: { trigger: string }) => b.trigger)).toEqual(["scheduled"]);
    // Not due again within the interval after its last backup.
    await backups.runScheduled();
    expect((await owner.get(`/api/resources/${db.body.id}/backups`)).body).toHaveLength(1);
    // Past retention (7 days by default) a backup is deleted, storage included; a new one is made (it is due).
    const old = await rows.backup.update({ where: { id: scheduled.body[0].id }, data: { createdAt: new Date(Date.now() - 8 * day) } });
    await backups.runScheduled();
    expect(await rows.backup.count({ where: { id: old.id } })).toBe(0);
    expect(await server.slipway.platform.storage.stat(old.storageKey)).toBeNull();
    const now = (await owner.get(`/api/resources/${db.body.id}/backups`)).body;
    expect(now).toHaveLength(1);
    expect(now[0].id).not.toBe(old.id);
    // Due again; two schedulers at the same moment (two instances sharing a counter store, as with Redis): one
    // new backup, not two.
    await rows.backup.update({ where: { id: now[0].id }, data: { createdAt: new Date(Date.now() - 2 * day) } });
    await Promise.all([backups.runScheduled(), backups.runScheduled()]);
    expect((await owner.get(`/api/resources/${db.body.id}/backups`)).body).toHaveLength(2);
    await owner.request("DELETE", `/api/apps/${slug}`);
  });
});
