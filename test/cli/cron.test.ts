// `slipway cron` and `slipway cron:run` as child processes against a real server: the table of the live release's
// app.json jobs with their next and last runs, and a job run now whose output streams and whose code is the exit code.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, zipFolder } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { cliHome, login, runCli, type CliHome } from "./helpers.ts";

let server: TestServer;
let user: Client;
let home: CliHome;
const slug = `cli-cron-${process.pid}`;

beforeAll(async () => {
  // A clock that stays put: nothing runs on schedule while the test looks at the jobs.
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" }, { clock: new FakeClock(Date.parse("2031-01-01T00:00:30Z")) });
  user = new Client(server.url);
  await user.signup();
  home = cliHome();
  await login(home, server.url, user);
  expect((await user.post("/api/apps", { slug })).status).toBe(201);
  const app = {
    "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
    "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`,
    "app.json": JSON.stringify({ cron: [{ command: "echo report; echo to stderr >&2; exit 5", schedule: "0 3 * * *" }] }),
  };
  expect((await deploy(user, slug, await zipFolder(null, app))).status).toBe("LIVE");
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

describe("slipway cron", () => {
  it("lists the jobs: id, schedule, command, next run, and no last run yet", async () => {
    const result = await runCli(home, ["cron", "--app", slug]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/ID\s+SCHEDULE \(UTC\)\s+COMMAND\s+NEXT RUN\s+LAST RUN\s+EXIT/);
    expect(result.stdout).toMatch(/[0-9a-f]{12}\s+0 3 \* \* \*\s+echo report.*T03:00:00\.000Z\s+-\s+-/);
  });

  it("cron:run streams the job's output and exits with its code; the table then shows that run", async () => {
    const [job] = JSON.parse((await runCli(home, ["cron", "--app", slug, "--json"])).stdout);
    const result = await runCli(home, ["cron:run", job.id, "--app", slug]);
    expect(result.stdout).toBe("report\n");
    expect(result.stderr).toContain("to stderr\n");
    expect(result.code).toBe(5);
    const table = await runCli(home, ["cron", "--app", slug]);
    expect(table.stdout).toMatch(/FAILED\s+5/);
    const runs = JSON.parse((await runCli(home, ["runs", "--app", slug, "--json"])).stdout);
    expect(runs[0]).toMatchObject({ trigger: "cron", status: "FAILED", exitCode: 5 });
    const unknown = await runCli(home, ["cron:run", "nope", "--app", slug]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no cron job "nope"');
  });
});
