// `slipway apps:sleep <minutes|off>` as a child process against a real server: it sets the app's sleepAfterMinutes
// (and, with --workers, sleepWorkers), apps:info says so, `off` turns it off; a number the server refuses exits 1 with
// the server's reason, and a word that is neither a number nor `off` exits 1 before any request.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { cliHome, login, runCli, type CliHome } from "./helpers.ts";

let server: TestServer;
let user: Client;
let home: CliHome;
const slug = `cli-sleep-${process.pid}`;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  user = new Client(server.url);
  await user.signup();
  home = cliHome();
  await login(home, server.url, user);
  expect((await user.post("/api/apps", { slug })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

describe("slipway apps:sleep", () => {
  it("sets the minutes (and --workers), apps:info shows them, and off turns sleep off", async () => {
    const set = await runCli(home, ["apps:sleep", "15", "--workers", "--app", slug]);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(`${slug}: sleeps after 15 minutes without a request (with its other process types), the next request waking it.`);
    expect((await user.get(`/api/apps/${slug}`)).body).toMatchObject({ sleepAfterMinutes: 15, sleepWorkers: true });
    expect((await runCli(home, ["apps:info", "--app", slug])).stdout).toMatch(/^Sleep: +sleeps after 15 minutes/m);

    const off = await runCli(home, ["apps:sleep", "off", "--app", slug, "--json"]);
    expect(JSON.parse(off.stdout)).toMatchObject({ slug, sleepAfterMinutes: null, sleepWorkers: false });
    expect((await runCli(home, ["apps:info", "--app", slug])).stdout).toMatch(/^Sleep: +never sleeps$/m);
  });

  it("exits 1 with the server's reason for a number out of range, and before any request for a word", async () => {
    const tooLong = await runCli(home, ["apps:sleep", "20000", "--app", slug]);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toMatch(/1 to 10080/);
    const word = await runCli(home, ["apps:sleep", "soon", "--app", "no-such-app-anywhere"]);
    expect(word.code).toBe(1);
    expect(word.stderr).toMatch(/whole number \(1-10080\), or `off`; not "soon"/);
  });
});
