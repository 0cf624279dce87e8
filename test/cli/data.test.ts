// `slipway db:*`, `quota:request`/`quota:requests` and `cdn:*` as child processes against a real server: each command's
// happy path with --json parsed, a backup restored into the real SQLite file, and refusals (quota exceeded,
// not found, another user's database, missing confirmation or reason) exiting 1 with the server's message.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { issueTokens, registerClient } from "../oauth/helpers.ts";
import { cliHome, login, runCli, type CliHome } from "./helpers.ts";

const KiB = 1024;
const CDN_BYTES = 1024 * KiB;
const UPLOAD_BYTES = 600 * KiB;
let server: TestServer;
let user: Client;
let home: CliHome;
let counter = 0;
const newSlug = () => `cli-db-${process.pid}-${++counter}`;

beforeAll(async () => {
  server = await startServer({
    DEFAULT_MAX_APPS: "20",
    DEFAULT_MAX_DATABASES: "2",
    DEFAULT_REQUESTS_PER_MINUTE: "100000",
    DEFAULT_CDN_BYTES: String(CDN_BYTES),
    DEFAULT_MAX_UPLOAD_BYTES: String(UPLOAD_BYTES),
  });
  user = new Client(server.url);
  await user.signup();
  home = cliHome();
  await login(home, server.url, user);
});
afterAll(async () => {
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

async function newApp(): Promise<string> {
  const slug = newSlug();
  const res = await user.post("/api/apps", { slug });
  expect(res.status).toBe(201);
  return slug;
}

const json = async (args: string[]) => {
  const result = await runCli(home, [...args, "--json"]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
};

/** The SQLite file of database `id` on the host (DATA_DIR/apps/<app id>/data/<id>.db). */
function sqliteFile(id: string): string {
  const apps = path.join(server.config.dataDir, "apps");
  const found = fs.readdirSync(apps).map((app) => path.join(apps, app, "data", `${id}.db`)).find((f) => fs.existsSync(f));
  if (!found) throw new Error(`no file for database ${id}`);
  return found;
}

describe("slipway db", () => {
  it("db:create, db:list, db:url and db:delete, by name (with --app) or id; the quota refuses a third", async () => {
    const slug = await newApp();
    const first = await json(["db:create", "--app", slug]);
    expect(first).toMatchObject({ type: "sqlite", name: "main", envKey: "DATABASE_URL" });
    const text = await runCli(home, ["db:create", "--app", slug, "--name", "cache"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Created the sqlite database cache \(\w+\) for /);
    expect(text.stdout).toContain("DATABASE_URL_CACHE");

    const listed = await json(["db:list", "--app", slug]);
    expect(listed.map((d: { name: string }) => d.name).sort()).toEqual(["cache", "main"]);
    const env = await json(["env", "--app", slug]);
    expect(Object.keys(env).sort()).toEqual(["DATABASE_URL", "DATABASE_URL_CACHE"]);
    const table = await runCli(home, ["db:list", "--app", slug]);
    expect(table.stdout).toMatch(/^main\s+sqlite\s+DATABASE_URL\s+/m);

    const over = await runCli(home, ["db:create", "--app", slug, "--name", "third"]);
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/^Error: .*\b2\b.*database/i);
    expect((await json(["db:list", "--app", slug])).length).toBe(2);
    const badName = await runCli(home, ["db:create", "--app", slug, "--name", "Bad-Name"]);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain("lowercase letters, digits or underscores");
    const badType = await runCli(home, ["db:create", "--app", slug, "--type", "mysql"]);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toContain("Allowed choices are postgres, sqlite");
    const noPostgres = await runCli(home, ["db:create", "--app", slug, "--type", "postgres"]);
    expect(noPostgres.code).toBe(1);
    expect(noPostgres.stderr).toContain("Error: PostgreSQL databases are not available on this platform (POSTGRES_PROVISION_URL is not set): choose sqlite.");

    const url = await runCli(home, ["db:url", "main", "--app", slug]);
    expect(url.code, url.stderr).toBe(0);
    expect(url.stdout.trim()).toMatch(new RegExp(`^file:.*${first.id}\\.db$`));

    const missing = await runCli(home, ["db:delete", "nothing", "--app", slug, "--yes"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${slug} has no database named nothing`);
    const unconfirmed = await runCli(home, ["db:delete", "cache", "--app", slug]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain("--yes");
    expect((await json(["db:list", "--app", slug])).length).toBe(2);
    const deleted = await runCli(home, ["db:delete", "cache", "--app", slug, "--yes"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain("Deleted the database cache");
    // By id, without an app.
    const byId = await runCli(home, ["db:delete", first.id, "--yes"]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(await json(["db:list", "--app", slug])).toEqual([]);
    expect(await json(["env", "--app", slug])).toEqual({});
  });

  it("db:backup, db:backups and db:restore put the backed-up rows back into the database", async () => {
    const slug = await newApp();
    fs.writeFileSync(path.join(home.cwd, "slipway.json"), JSON.stringify({ app: slug }));
    const db = await json(["db:create"]);
    const file = sqliteFile(db.id);
    const write = (sql: string) => {
      const conn = new Database(file);
      conn.exec(sql);
      conn.close();
    };
    const rows = () => {
      const conn = new Database(file, { readonly: true });
      const names = conn.prepare("select name from notes order by name").all().map((r: any) => r.name);
      conn.close();
      return names;
    };
    write("create table notes (name text); insert into notes values ('kept');");

    const backup = await json(["db:backup", "main"]);
    expect(backup).toMatchObject({ trigger: "manual" });
    expect(backup.size).toBeGreaterThan(0);
    const text = await runCli(home, ["db:backup", db.id]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Backed up main: backup \w+ \(\d+(\.\d)? KB\)\.$/m);
    const listed = await json(["db:backups", "main"]);
    expect(listed.length).toBe(2);
    expect(listed[1]).toEqual(backup);

    write("delete from notes; insert into notes values ('after');");
    expect(rows()).toEqual(["after"]);
    const refused = await runCli(home, ["db:restore", "main", backup.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--yes");
    expect(rows()).toEqual(["after"]);
    const restored = await json(["db:restore", "main", backup.id, "--yes"]);
    expect(restored.id).toBe(backup.id);
    expect(rows()).toEqual(["kept"]);

    const unknownBackup = await runCli(home, ["db:restore", "main", "no-such-backup", "--yes"]);
    expect(unknownBackup.code).toBe(1);
    expect(unknownBackup.stderr).toMatch(/^Error: .*backup/im);
    fs.rmSync(path.join(home.cwd, "slipway.json"));
  });

  it("hides another user's database: not found by id, nothing changed", async () => {
    const other = new Client(server.url);
    await other.signup();
    const slug = newSlug();
    expect((await other.post("/api/apps", { slug })).status).toBe(201);
    const theirs = await other.post(`/api/apps/${slug}/resources`, {});
    expect(theirs.status).toBe(201);
    for (const args of [["db:delete", theirs.body.id, "--yes"], ["db:backup", theirs.body.id], ["db:url", theirs.body.id], ["db:backups", theirs.body.id]]) {
      const result = await runCli(home, args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain(`No database of yours has the id ${theirs.body.id}`);
    }
    const list = await runCli(home, ["db:list", "--app", slug]);
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/^Error: /);
    expect((await other.get(`/api/resources/${theirs.body.id}/backups`)).body).toEqual([]);
    expect((await other.get(`/api/apps/${slug}`)).body.resources).toHaveLength(1);
  });
});

describe("slipway quota:request", () => {
  it("checks its flags before asking, requires --reason off a terminal, then files the request; a second is refused", async () => {
    const none = await runCli(home, ["quota:request", "--reason", "more"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("Say which limits you want");
    const badSize = await runCli(home, ["quota:request", "--cdn-bytes", "lots", "--reason", "more"]);
    expect(badSize.code).toBe(1);
    expect(badSize.stderr).toContain('--cdn-bytes "lots" is not a size');
    const noReason = await runCli(home, ["quota:request", "--apps", "10"]);
    expect(noReason.code).toBe(1);
    expect(noReason.stderr).toContain("Give --reason");
    const tooMany = await runCli(home, ["quota:request", "--apps", "5000", "--reason", "more"]);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toMatch(/^Error: .*1,?000/m);
    expect(await json(["quota:requests"])).toEqual([]);

    const made = await json(["quota:request", "--apps", "10", "--cdn-bytes", "2GiB", "--upload-bytes", "200MiB", "--reason", "a bigger launch"]);
    expect(made).toMatchObject({
      status: "PENDING",
      reason: "a bigger launch",
      limits: { maxApps: 10, cdnBytes: 2 * 1024 ** 3, maxUploadBytes: 200 * 1024 ** 2, maxDatabases: null, requestsPerMinute: null },
    });
    expect((await user.get("/api/quota/requests")).body.map((r: { id: string }) => r.id)).toEqual([made.id]);

    const again = await runCli(home, ["quota:request", "--databases", "5", "--reason", "and more"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("Error: You already have a limit request waiting for a decision.");

    const listed = await json(["quota:requests"]);
    expect(listed).toEqual([made]);
    const table = await runCli(home, ["quota:requests"]);
    expect(table.stdout).toMatch(new RegExp(`${made.id}\\s+PENDING\\s+10 apps, 2.0 GB CDN storage, 200.0 MB uploads`));
    const quota = await runCli(home, ["quota"]);
    expect(quota.stdout).toContain(`Request ${made.id} for higher limits is pending`);
  });

  it("tells a login made without write:user (before quota:request existed) to log in again", async () => {
    const old = cliHome();
    const client = await registerClient(user);
    const tokens = await issueTokens(server, user, client, "read:user read:apps write:apps");
    fs.mkdirSync(path.join(old.configDir, "slipway"), { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      path.join(old.configDir, "slipway", "credentials.json"),
      JSON.stringify({ server: server.url, clientId: client.clientId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token, expiresAt: Date.now() + 3_600_000 }),
      { mode: 0o600 },
    );
    const result = await runCli(old, ["quota:request", "--apps", "11", "--reason", "more"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error: This access token lacks the "write:user" scope: your login predates this command. Run `slipway login` again to grant it.\n');
    expect((await runCli(old, ["quota:requests", "--json"])).code).toBe(0);
    fs.rmSync(old.home, { recursive: true, force: true });
  });
});

describe("slipway cdn", () => {
  let cdnHome: CliHome;
  let owner: Client;
  beforeAll(async () => {
    owner = new Client(server.url);
    await owner.signup();
    cdnHome = cliHome();
    await login(cdnHome, server.url, owner);
  });
  afterAll(() => fs.rmSync(cdnHome.home, { recursive: true, force: true }));

  const cdn = (args: string[]) => runCli(cdnHome, args);
  const cdnJson = async (args: string[]) => {
    const result = await cdn([...args, "--json"]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };
  const fileOf = (name: string, bytes: Buffer) => {
    const file = path.join(cdnHome.cwd, name);
    fs.writeFileSync(file, bytes);
    return file;
  };
  /** The public URL's content, as anyone would fetch it (no credentials, redirect followed). */
  const download = async (url: string) => {
    const res = await fetch(url);
    return { status: res.status, type: res.headers.get("content-type"), body: Buffer.from(await res.arrayBuffer()) };
  };

  it("cdn:upload prints the public URL, whose content downloads equal to the file; --json answers the file", async () => {
    const bytes = crypto.randomBytes(300 * KiB);
    const file = fileOf("logo.png", bytes);
    const uploaded = await cdn(["cdn:upload", file]);
    expect(uploaded.code, uploaded.stderr).toBe(0);
    const url = uploaded.stdout.trim();
    expect(url).toMatch(new RegExp(`^${server.url}/api/cdn/\\w+$`));
    expect(uploaded.stderr).toMatch(/^Uploading 300\.0 KB in \d+\.\ds$/m);
    expect(uploaded.stderr).toMatch(/^Uploaded logo\.png \(300\.0 KB, image\/png\) as \w+\.$/m);
    const got = await download(url);
    expect(got.status).toBe(200);
    expect(got.type).toBe("image/png");
    expect(got.body.equals(bytes)).toBe(true);

    const text = fileOf("notes.txt", Buffer.from("hello from the CLI\n"));
    const json = await cdnJson(["cdn:upload", text, "--name", "renamed.txt"]);
    expect(json).toMatchObject({ name: "renamed.txt", size: 19, contentType: "text/plain", sha256: crypto.createHash("sha256").update("hello from the CLI\n").digest("hex") });
    expect((await download(json.url)).body.toString()).toBe("hello from the CLI\n");

    const listed = await cdnJson(["cdn:list"]);
    expect(listed.map((f: { name: string }) => f.name)).toEqual(["renamed.txt", "logo.png"]);
    expect(listed[0]).toEqual(json);
    const table = await cdn(["cdn:list"]);
    expect(table.stdout).toMatch(new RegExp(`^${json.id}\\s+renamed\\.txt\\s+19 B\\s+text/plain`, "m"));
    expect(table.stdout).toContain("2 files, 300.0 KB");
  });

  it("refuses what does not fit with the server's message, a file over the upload limit before sending it, and a missing file", async () => {
    await cdnJson(["cdn:upload", fileOf("filler.bin", crypto.randomBytes(500 * KiB))]);
    const before = await cdnJson(["cdn:list"]);
    const used = before.reduce((sum: number, f: { size: number }) => sum + f.size, 0);
    // Under the upload limit, over what is left of the storage: the server says no, nothing is kept.
    const big = fileOf("big.bin", crypto.randomBytes(CDN_BYTES - used + KiB));
    expect(fs.statSync(big).size).toBeLessThan(UPLOAD_BYTES);
    const full = await cdn(["cdn:upload", big]);
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/^Error: .*cdnBytes/m);
    expect(await cdnJson(["cdn:list"])).toEqual(before);

    const huge = fileOf("huge.bin", Buffer.alloc(UPLOAD_BYTES + 1));
    const tooBig = await cdn(["cdn:upload", huge]);
    expect(tooBig.code).toBe(1);
    expect(tooBig.stderr).toBe("Error: " + huge + " is 600.0 KB, over your upload limit of 600.0 KB (ask for more with `slipway quota:request --upload-bytes …`).\n");

    const missing = await cdn(["cdn:upload", "no-such-file.txt"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("Error: Cannot read no-such-file.txt: ENOENT\n");
  });

  it("cdn:delete by id or unique name (asks for --yes off a terminal); the URL stops working; another user's file is not found", async () => {
    const a = await cdnJson(["cdn:upload", fileOf("same.txt", Buffer.from("a"))]);
    const b = await cdnJson(["cdn:upload", fileOf("same.txt", Buffer.from("b"))]);
    const ambiguous = await cdn(["cdn:delete", "same.txt", "--yes"]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain("2 of your files are named same.txt: give the id");
    const unconfirmed = await cdn(["cdn:delete", a.id]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain("--yes");
    expect((await download(a.url)).status).toBe(200);

    const deleted = await cdn(["cdn:delete", a.id, "--yes"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(`Deleted same.txt (${a.id}).\n`);
    expect((await download(a.url)).status).toBe(404);
    const byName = await cdn(["cdn:delete", "same.txt", "--yes"]);
    expect(byName.code, byName.stderr).toBe(0);
    expect((await download(b.url)).status).toBe(404);
    expect((await cdnJson(["cdn:list"])).map((f: { id: string }) => f.id)).not.toContain(b.id);

    const theirs = await runCli(home, ["cdn:upload", fileOf("theirs.txt", Buffer.from("theirs")), "--json"]);
    expect(theirs.code, theirs.stderr).toBe(0);
    const theirFile = JSON.parse(theirs.stdout);
    const hidden = await cdn(["cdn:delete", theirFile.id, "--yes"]);
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toContain(`You have no CDN file with the id or name ${theirFile.id}`);
    expect((await download(theirFile.url)).body.toString()).toBe("theirs");
  });
});
