// `slipway domains`, `domains:add`, `domains:verify` and `domains:remove` as child processes against a real server:
// adding prints the DNS record to create and the pending state with both ways to prove control; verifying goes
// through the real HTTP challenge (the hostname resolved to 127.0.0.1 by DOMAIN_VERIFY_RESOLVE); the domain then
// routes to the app, and after domains:remove no longer does. Refusals exit 1 with the server's message.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestApp } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { cliHome, login, runCli, type CliHome } from "./helpers.ts";

let server: TestServer;
let user: Client;
let home: CliHome;
const slug = `cli-dom-${process.pid}`;
const HOST = "cli.example.test";

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", DOMAIN_VERIFY_RESOLVE: `${HOST}:127.0.0.1` });
  user = new Client(server.url);
  await user.signup();
  expect((await user.post("/api/apps", { slug })).status).toBe(201);
  home = cliHome();
  await login(home, server.url, user);
});
afterAll(async () => {
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

describe("slipway domains", () => {
  it("domains:add prints the DNS record and the pending state; domains:verify, domains and domains:remove", async () => {
    const empty = await runCli(home, ["domains", "--app", slug]);
    expect([empty.code, empty.stdout.trim()]).toEqual([0, `${slug} has no custom domains. Add one with \`slipway domains:add <hostname>\`.`]);

    const added = await runCli(home, ["domains:add", "CLI.Example.Test", "--app", slug]);
    expect(added.code, added.stderr).toBe(0);
    const [domain] = (await user.get(`/api/apps/${slug}/domains`)).body as { txtRecord: { name: string; value: string }; challengeUrl: string }[];
    expect(added.stdout).toContain(`${HOST} (${slug}): pending`);
    expect(added.stdout).toContain(`CNAME ${HOST}  →  ${slug}.localhost`);
    expect(added.stdout).toContain(`Slipway fetches ${domain.challengeUrl}`);
    expect(added.stdout).toContain(`TXT   ${domain.txtRecord.name}  →  ${domain.txtRecord.value}`);
    expect(added.stdout).toContain(`slipway domains:verify ${HOST}`);
    // Pending: the app does not answer on it yet.
    expect((await requestApp(server.url, HOST)).body).toMatch(/No app here/);

    const listed = await runCli(home, ["domains", "--app", slug]);
    expect(listed.stdout).toMatch(new RegExp(`^${HOST.replace(/\./g, "\\.")}\\s+pending\\s+CNAME ${slug}\\.localhost\\s+none$`, "m"));

    const verified = await runCli(home, ["domains:verify", HOST, "--app", slug, "--json"]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ hostname: HOST, verified: true, txtRecord: null, challengeUrl: null, certificate: "none" });
    // The app has no release: the verified domain shows its status page, as <slug>.<APPS_DOMAIN> does.
    expect((await requestApp(server.url, HOST)).body).toBe((await requestApp(server.url, `${slug}.localhost`)).body);
    const json = await runCli(home, ["domains", "--app", slug, "--json"]);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ hostname: HOST, verified: true, dnsRecord: { type: "CNAME", name: HOST, value: `${slug}.localhost` } })]);

    const removed = await runCli(home, ["domains:remove", HOST, "--app", slug]);
    expect([removed.code, removed.stdout.trim()]).toEqual([0, `Removed ${HOST} from ${slug}: it no longer reaches the app.`]);
    expect((await requestApp(server.url, HOST)).body).toMatch(/No app here/);
    const again = await runCli(home, ["domains:remove", HOST, "--app", slug]);
    expect([again.code, again.stderr]).toEqual([1, `Error: The app "${slug}" has no domain "${HOST}".\n`]);
  });

  it("refuses an invalid hostname, another app's hostname and an unknown app with the server's message", async () => {
    const invalid = await runCli(home, ["domains:add", "https://x.example.test/", "--app", slug]);
    expect([invalid.code, invalid.stderr]).toEqual([1, expect.stringContaining("without http:// or https://")]);
    const other = `cli-dom2-${process.pid}`;
    expect((await user.post("/api/apps", { slug: other })).status).toBe(201);
    expect((await runCli(home, ["domains:add", "taken.example.test", "--app", other])).code).toBe(0);
    const taken = await runCli(home, ["domains:add", "taken.example.test", "--app", slug]);
    expect([taken.code, taken.stderr]).toEqual([1, expect.stringMatching(/taken\.example\.test/)]);
    const pending = await runCli(home, ["domains:verify", "taken.example.test", "--app", other]);
    expect([pending.code, pending.stderr]).toEqual([1, expect.stringMatching(/^Error: .*taken\.example\.test/)]);
    const unknown = await runCli(home, ["domains", "--app", "no-such-app-here"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no-such-app-here|not found/i);
  });
});
