// PostgreSQL app databases on a platform with POSTGRES_PROVISION_URL: a real database and role per database,
// a sandboxed app connecting with its DATABASE_URL (and reaching only the PostgreSQL port of the host), another
// app's role refused, backup and restore with pg_dump/pg_restore, and delete dropping the database and the role.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, waitFor } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { createPostgresDatabase, POSTGRES_ADMIN_URL, startServer, type TestServer } from "../helpers/server.ts";
import { dbAppZip } from "./db-app.ts";

let server: TestServer;
let owner: Client;
let admin: pg.Client;
/** The platform's own database, on the same server as the apps' (the case where it must stay out of their reach). */
let platformDb: { url: string; drop: () => Promise<void> };
let counter = 0;
const newSlug = () => `pg-${process.pid}-${++counter}`;

async function newApp(): Promise<string> {
  const slug = newSlug();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  return slug;
}

async function ask(slug: string, p: string): Promise<{ status: number; body: any }> {
  const target = server.slipway.platform.engine.routes.lookup(slug);
  if (target.kind !== "proxy") throw new Error(`${slug} is not running (${target.kind})`);
  const res = await fetch(`http://${target.upstreams[0].host}:${target.upstreams[0].port}${p}`);
  return { status: res.status, body: await res.json() };
}

function runningWith(slug: string, keys: string[]) {
  return waitFor(
    async () => {
      try {
        return JSON.stringify((await ask(slug, "/env")).body) === JSON.stringify(keys);
      } catch {
        return false;
      }
    },
    30_000,
    `${slug} running with ${keys.join(", ")}`,
  );
}

const reveal = async (id: string): Promise<string> =>
  (await owner.graphql(`query($id: ID!) { revealResourceUrl(id: $id) }`, { id })).body.data.revealResourceUrl;

/** The URL as the test process reaches the server (apps reach it at the runtime's service address). */
function fromHost(url: string, database?: string): string {
  const u = new URL(url);
  u.hostname = "127.0.0.1";
  if (database) u.pathname = `/${database}`;
  return u.toString();
}

const exists = async (name: string) => ({
  database: (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1,
  role: (await admin.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [name])).rowCount === 1,
});

beforeAll(async () => {
  platformDb = await createPostgresDatabase();
  server = await startServer({ DATABASE_URL: platformDb.url, POSTGRES_PROVISION_URL: POSTGRES_ADMIN_URL, DEFAULT_MAX_APPS: "50", DEFAULT_MAX_DATABASES: "10", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
  admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await server?.close();
  await platformDb?.drop();
});

describe("PostgreSQL databases", () => {
  it("are the default type, with a database and a login role of their own that owns only it", async () => {
    const slug = await newApp();
    expect((await owner.graphql(`{ databaseTypes }`)).body.data.databaseTypes).toEqual(["postgres", "sqlite"]);
    const db = await owner.post(`/api/apps/${slug}/resources`, {});
    expect(db.status).toBe(201);
    expect(db.body).toMatchObject({ type: "postgres", name: "main", envKey: "DATABASE_URL" });
    const name = `slipway_${db.body.id}`;
    expect(await exists(name)).toEqual({ database: true, role: true });
    const role = await admin.query("SELECT rolsuper, rolcreatedb, rolcreaterole, rolcanlogin FROM pg_roles WHERE rolname = $1", [name]);
    expect(role.rows[0]).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolcanlogin: true });
    const owned = await admin.query("SELECT pg_get_userbyid(datdba) AS owner, datacl::text AS acl FROM pg_database WHERE datname = $1", [name]);
    expect(owned.rows[0].owner).toBe(name);
    expect(owned.rows[0].acl).not.toMatch(/(^|[{,])=/); // no grant to PUBLIC
    const url = await reveal(db.body.id);
    expect(url).toMatch(new RegExp(`^postgresql://${name}:[A-Za-z0-9_-]{32}@[0-9.]+:5432/${name}$`));
    // The secret is stored encrypted, never as the URL.
    const row = await server.slipway.platform.db.resource.findUniqueOrThrow({ where: { id: db.body.id } });
    expect(row.connectionSecret).not.toContain(new URL(url).password);
    expect((await owner.get(`/api/apps/${slug}/env`)).body).toEqual([{ key: "DATABASE_URL", value: url }]);
    expect((await owner.request("DELETE", `/api/apps/${slug}`)).status).toBe(204);
    expect(await exists(name)).toEqual({ database: false, role: false });
  });

  it("serve a sandboxed app through its DATABASE_URL (only the PostgreSQL port of the host), and refuse another app's role", async () => {
    const zip = await dbAppZip();
    const [a, b] = [await newApp(), await newApp()];
    expect((await deploy(owner, a, zip)).status).toBe("LIVE");
    const dbA = await owner.post(`/api/apps/${a}/resources`, {});
    const dbB = await owner.post(`/api/apps/${b}/resources`, {});
    await runningWith(a, ["DATABASE_URL"]);
    expect((await ask(a, "/pg?add=alpha")).body).toEqual(["alpha"]);
    expect((await ask(a, "/pg?add=beta")).body).toEqual(["alpha", "beta"]);

    // From inside the sandbox, the service address answers on the PostgreSQL port only; Redis on the host does not.
    const serviceHost = new URL(await reveal(dbA.body.id)).hostname;
    expect((await ask(a, `/connect?host=${serviceHost}&port=5432`)).body).toBe("open");
    expect((await ask(a, `/connect?host=${serviceHost}&port=6379`)).body).not.toBe("open");
    const gateway = server.slipway.platform.engine.routes.lookup(a);
    if (gateway.kind === "proxy" && gateway.upstreams[0].host !== "127.0.0.1") {
      const hostSide = gateway.upstreams[0].host.replace(/\d+$/, (n) => String(Number(n) - 1));
      expect((await ask(a, `/connect?host=${hostSide}&port=5432`)).body).not.toBe("open");
      expect((await ask(a, `/connect?host=${hostSide}&port=6379`)).body).not.toBe("open");
    }

    // App B's role cannot connect to app A's database (CONNECT is revoked from PUBLIC).
    const urlB = await reveal(dbB.body.id);
    const intruder = new pg.Client({ connectionString: fromHost(urlB, `slipway_${dbA.body.id}`) });
    await expect(intruder.connect()).rejects.toThrow(/permission denied for database/);
    await intruder.end().catch(() => {});
    // Nor can it read the platform's database on the same server (connecting is refused, or reading is).
    const platformName = new URL(platformDb.url).pathname.slice(1);
    const snoop = new pg.Client({ connectionString: fromHost(urlB, platformName) });
    snoop.on("error", () => {});
    const read = snoop.connect().then(() => snoop.query(`SELECT email FROM "User"`));
    await expect(read).rejects.toThrow(/permission denied/);
    await snoop.end().catch(() => {});
    // Its own database it can use.
    const own = new pg.Client({ connectionString: fromHost(urlB) });
    await own.connect();
    expect((await own.query("SELECT current_user AS u")).rows[0].u).toBe(`slipway_${dbB.body.id}`);
    await own.end();

    for (const slug of [a, b]) await owner.request("DELETE", `/api/apps/${slug}`);
  });

  it("are backed up with pg_dump and restored with pg_restore, bringing back a deleted row", async () => {
    const slug = await newApp();
    const db = await owner.post(`/api/apps/${slug}/resources`, {});
    const client = new pg.Client({ connectionString: fromHost(await reveal(db.body.id)) });
    await client.connect();
    await client.query("CREATE TABLE items (v text)");
    await client.query("INSERT INTO items VALUES ('kept'), ('lost')");
    await client.end();
    const backup = await owner.post(`/api/resources/${db.body.id}/backups`);
    expect(backup.status).toBe(201);
    expect(backup.body.size).toBeGreaterThan(0);
    const download = await fetch(`${server.url}/api/resources/${db.body.id}/backups/${backup.body.id}`, { headers: { cookie: owner.cookie! } });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).subarray(0, 5).toString()).toBe("PGDMP");

    const again = new pg.Client({ connectionString: fromHost(await reveal(db.body.id)) });
    await again.connect();
    await again.query("DELETE FROM items WHERE v = 'lost'");
    await again.end();
    const restored = await owner.post(`/api/resources/${db.body.id}/backups/${backup.body.id}/restore`);
    expect(restored.status).toBe(200);
    const check = new pg.Client({ connectionString: fromHost(await reveal(db.body.id)) });
    await check.connect();
    expect((await check.query("SELECT v FROM items ORDER BY v")).rows.map((r) => r.v)).toEqual(["kept", "lost"]);
    await check.end();
    const audit = await server.slipway.platform.db.auditEvent.findMany({ where: { targetId: db.body.id }, orderBy: { createdAt: "asc" } });
    expect(audit.map((e) => e.action).filter((a) => a !== "resource.reveal_url")).toEqual(["resource.create", "backup.create", "backup.restore"]);
    // Each time the URL (with its password) was shown is recorded too, without the URL.
    const reveals = audit.filter((e) => e.action === "resource.reveal_url");
    expect(reveals).toHaveLength(3);
    expect(JSON.stringify(reveals)).not.toContain("postgresql://");
  });

  it("are dropped for real on delete: connections terminated, database and role gone, env var removed", async () => {
    const slug = await newApp();
    const db = await owner.post(`/api/apps/${slug}/resources`, {});
    const name = `slipway_${db.body.id}`;
    const open = new pg.Client({ connectionString: fromHost(await reveal(db.body.id)) });
    open.on("error", () => {});
    await open.connect();
    expect((await owner.request("DELETE", `/api/resources/${db.body.id}`)).status).toBe(204);
    expect(await exists(name)).toEqual({ database: false, role: false });
    expect((await owner.get(`/api/apps/${slug}/env`)).body).toEqual([]);
    await open.end().catch(() => {});
    await owner.request("DELETE", `/api/apps/${slug}`);
  });
});

describe("PostgreSQL databases provisioned by a role that is not a superuser", () => {
  it("are created, owned by their own role, and dropped, with only CREATEDB and CREATEROLE", async () => {
    const provisioner = `slipway_provisioner_${process.pid}`;
    await admin.query(`CREATE ROLE ${provisioner} LOGIN CREATEDB CREATEROLE`);
    const url = new URL(POSTGRES_ADMIN_URL);
    url.username = provisioner;
    const second = await startServer({ POSTGRES_PROVISION_URL: url.toString(), DEFAULT_REQUESTS_PER_MINUTE: "100000" });
    try {
      const client = new Client(second.url);
      await client.signup();
      const slug = newSlug();
      expect((await client.post("/api/apps", { slug })).status).toBe(201);
      const db = await client.post(`/api/apps/${slug}/resources`, {});
      expect(db.status).toBe(201);
      const name = `slipway_${db.body.id}`;
      const owned = await admin.query("SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1", [name]);
      expect(owned.rows[0].owner).toBe(name);
      const revealed = (await client.graphql(`query($id: ID!) { revealResourceUrl(id: $id) }`, { id: db.body.id })).body.data.revealResourceUrl;
      const own = new pg.Client({ connectionString: fromHost(revealed) });
      await own.connect();
      await own.query("CREATE TABLE t (x int)");
      await own.end();
      expect((await client.post(`/api/resources/${db.body.id}/backups`)).status).toBe(201);
      expect((await client.request("DELETE", `/api/resources/${db.body.id}`)).status).toBe(204);
      expect(await exists(name)).toEqual({ database: false, role: false });
    } finally {
      await second.close();
      await admin.query(`DROP ROLE IF EXISTS ${provisioner}`);
    }
  });
});
