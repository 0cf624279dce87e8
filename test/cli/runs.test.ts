// `slipway run`, `runs` and `runs:cancel` as child processes against a real server that runs the commands sandboxed
// in the app's live release: the output streams to stdout and stderr, the exit code is the command's, a timeout
// exits 1 saying so, --detach prints the run's id, and a detached run can be listed and canceled.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, waitFor, zipFolder } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { cliHome, login, runCli, type CliHome } from "./helpers.ts";

let server: TestServer;
let user: Client;
let home: CliHome;
const slug = `cli-runs-${process.pid}`;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  user = new Client(server.url);
  await user.signup();
  home = cliHome();
  await login(home, server.url, user);
  expect((await user.post("/api/apps", { slug })).status).toBe(201);
  const app = { "package.json": JSON.stringify({ name: "t", version: "1.0.0" }), "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);` };
  expect((await deploy(user, slug, await zipFolder(null, app))).status).toBe("LIVE");
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

describe("slipway run", () => {
  it("streams the command's output and exits with its exit code", async () => {
    const ok = await runCli(home, ["run", "--app", slug, "echo", "ok"]);
    expect(ok.stdout).toBe("ok\n");
    expect(ok.code).toBe(0);
    const seven = await runCli(home, ["run", "--app", slug, "echo to stderr >&2; exit 7"]);
    expect(seven.code).toBe(7);
    expect(seven.stderr).toContain("to stderr\n");
    // The command's own options pass through.
    const listing = await runCli(home, ["run", "--app", slug, "ls", "-a"]);
    expect([listing.code, listing.stderr]).toEqual([0, expect.any(String)]);
    expect(listing.stdout.split("\n")).toEqual(expect.arrayContaining([".", "server.js"]));
  });

  it("exits 1 naming the status when the run ends without an exit code (its timeout)", async () => {
    const result = await runCli(home, ["run", "--app", slug, "--timeout", "1", "sleep", "30"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/TIMED_OUT: Stopped after its timeout of 1 s/);
    const bad = await runCli(home, ["run", "--app", slug, "--timeout", "0", "echo", "hi"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--timeout takes a whole number of seconds from 1 to 86400");
  });

  it("--detach prints the run's id; `runs` lists it and `runs:cancel` kills it", async () => {
    const detached = await runCli(home, ["run", "--app", slug, "--detach", "sleep", "60"]);
    expect(detached.code).toBe(0);
    const id = detached.stdout.trim();
    expect(id).toMatch(/^\w+$/);
    const listed = await runCli(home, ["runs", "--app", slug, "--json"]);
    expect(JSON.parse(listed.stdout)[0]).toMatchObject({ id, command: "sleep 60", status: "RUNNING", trigger: "api" });
    const canceled = await runCli(home, ["runs:cancel", id, "--app", slug]);
    expect(canceled.code).toBe(0);
    expect(canceled.stdout).toContain(`Run ${id} CANCELED.`);
    const again = await runCli(home, ["runs:cancel", id, "--app", slug]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already finished");
    const table = await waitFor(async () => {
      const result = await runCli(home, ["runs", "--app", slug]);
      return result.stdout.includes("CANCELED") && result.stdout;
    });
    expect(table).toMatch(/ID\s+STATUS\s+EXIT/);
  });
});
