// Cron jobs from app.json on the real server with a real sandboxed app: the scheduler's clock is injected (it never
// moves by itself) and its minutes are ticked by the test, so a job every minute is seen to run twice without waiting
// for a minute. Their history over REST and GraphQL, run now, a bad app.json that fails the build naming the entry
// while the live release keeps its jobs, and a rollback that brings back its release's jobs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, waitFor, zipFolder } from "../helpers/apps.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { bearer, issueTokens, registerClient } from "../oauth/helpers.ts";

let server: TestServer;
let owner: Client;
let slug: string;
let firstDeployment: string;

const FINISHED = new Set(["SUCCEEDED", "FAILED", "TIMED_OUT", "CANCELED"]);
// Far from the real time: only the test's ticks run jobs.
const clock = new FakeClock(Date.parse("2031-01-01T00:00:30Z"));

const nodeApp = (appJson: unknown) => ({
  "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
  "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`,
  "app.json": JSON.stringify(appJson),
});
const EVERY_MINUTE = { command: 'echo "cron ran in $PWD"', schedule: "* * * * *" };
const NIGHTLY = { command: "echo nightly", schedule: "30 2 * * mon-fri", timeoutSeconds: 120 };
const SLOW = { command: "sleep 25", schedule: "*/10 * * * *" };

interface CronJob {
  id: string;
  command: string;
  schedule: string;
  timeoutSeconds: number;
  nextRunAt: string | null;
  lastRun: { id: string; status: string; exitCode: number | null; trigger: string; cronJobId: string } | null;
}

const jobs = async (): Promise<CronJob[]> => {
  const res = await owner.get(`/api/apps/${slug}/cron`);
  expect(res.status).toBe(200);
  return res.body;
};

const finished = (id: string) =>
  waitFor(async () => {
    const res = await owner.get(`/api/apps/${slug}/runs/${id}`);
    return FINISHED.has(res.body.status) ? res.body : null;
  }, 30_000, `run ${id} to finish`);

const tick = (minute: string) => server.slipway.platform.cron.tick(new Date(`${minute}Z`));

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" }, { clock });
  owner = new Client(server.url);
  await owner.signup();
  slug = `cron-${process.pid}`;
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  const live = await deploy(owner, slug, await zipFolder(null, nodeApp({ cron: [EVERY_MINUTE, NIGHTLY, SLOW] })));
  expect(live.status).toBe("LIVE");
  firstDeployment = live.id;
}, 120_000);
afterAll(() => server?.close());

describe("cron jobs", () => {
  it("need the owner's app (404 for others) and write:apps to run one now (403)", async () => {
    expect((await new Client(server.url).get(`/api/apps/${slug}/cron`)).status).toBe(401);
    const stranger = new Client(server.url);
    await stranger.signup();
    const [list, run] = await Promise.all([stranger.get(`/api/apps/${slug}/cron`), stranger.post(`/api/apps/${slug}/cron/x/run`)]);
    expect([list.status, run.status]).toEqual([404, 404]);
    const readOnly = bearer(server, (await issueTokens(server, owner, await registerClient(owner), "read:apps")).access_token);
    const [job] = await jobs();
    expect((await readOnly.get(`/api/apps/${slug}/cron`)).status).toBe(200);
    const refused = await readOnly.post(`/api/apps/${slug}/cron/${job!.id}/run`);
    expect([refused.status, refused.body.error.code]).toEqual([403, "insufficient_scope"]);
  });

  it("lists the live release's app.json jobs with their next run, and logs them in the build", async () => {
    const list = await jobs();
    expect(list).toEqual([
      // Counted from the scheduler's clock (2031-01-01 00:00:30, a Wednesday).
      { id: expect.stringMatching(/^[0-9a-f]{12}$/), ...EVERY_MINUTE, timeoutSeconds: 3600, nextRunAt: "2031-01-01T00:01:00.000Z", lastRun: null },
      { id: expect.stringMatching(/^[0-9a-f]{12}$/), ...NIGHTLY, nextRunAt: "2031-01-01T02:30:00.000Z", lastRun: null },
      { id: expect.stringMatching(/^[0-9a-f]{12}$/), ...SLOW, timeoutSeconds: 3600, nextRunAt: "2031-01-01T00:10:00.000Z", lastRun: null },
    ]);
    const build = (await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${firstDeployment}&limit=1000`)).body.map((l: { line: string }) => l.line);
    expect(build).toContain('app.json: cron job `echo nightly` on "30 2 * * mon-fri" (UTC, timeout 120 s).');
  });

  it("runs a job every minute it is due, once per minute, with its history over REST and GraphQL", async () => {
    const [job] = await jobs();
    await tick("2031-01-01T00:01:00");
    await tick("2031-01-01T00:01:00"); // the same minute again (another instance, a restart): claimed already
    const first = await waitFor(async () => (await jobs())[0]!.lastRun, 10_000, "the first cron run");
    expect(first).toMatchObject({ trigger: "cron", cronJobId: job!.id });
    expect(await finished(first.id)).toMatchObject({ status: "SUCCEEDED", exitCode: 0 });
    await tick("2031-01-01T00:02:00");
    const second = await waitFor(async () => {
      const last = (await jobs())[0]!.lastRun;
      return last && last.id !== first.id ? last : null;
    });
    expect(await finished(second.id)).toMatchObject({ status: "SUCCEEDED", exitCode: 0 });
    const runs = (await owner.get(`/api/apps/${slug}/runs`)).body.filter((r: { trigger: string }) => r.trigger === "cron");
    expect(runs.map((r: { id: string }) => r.id)).toEqual([second.id, first.id]);
    const output = (await owner.get(`/api/apps/${slug}/logs?kind=run&run=${second.id}`)).body.filter((l: { stream: string }) => l.stream === "stdout");
    expect(output.map((l: { line: string }) => l.line)).toEqual(["cron ran in /app"]);
    const gql = await owner.graphql(`query($slug: String!) { app(slug: $slug) { cronJobs { id schedule lastRun { id status exitCode trigger } } } }`, { slug });
    expect(gql.body.data.app.cronJobs[0]).toEqual({ id: job!.id, schedule: "* * * * *", lastRun: { id: second.id, status: "SUCCEEDED", exitCode: 0, trigger: "cron" } });
  });

  it("runs a job now (202, trigger cron), over REST and GraphQL; an unknown job is 404", async () => {
    const [, nightly] = await jobs();
    const res = await owner.post(`/api/apps/${slug}/cron/${nightly!.id}/run`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ command: "echo nightly", trigger: "cron", cronJobId: nightly!.id, status: "RUNNING", timeoutSeconds: 120 });
    expect(await finished(res.body.id)).toMatchObject({ status: "SUCCEEDED", exitCode: 0 });
    expect((await jobs())[1]!.lastRun).toMatchObject({ id: res.body.id, status: "SUCCEEDED" });
    const gql = await owner.graphql(`mutation($slug: String!, $id: ID!) { runCronJob(slug: $slug, id: $id) { __typename ... on Run { id trigger } ... on Error { code } } }`, { slug, id: nightly!.id });
    expect(gql.body.data.runCronJob).toMatchObject({ __typename: "Run", trigger: "cron" });
    await finished(gql.body.data.runCronJob.id);
    const missing = await owner.post(`/api/apps/${slug}/cron/nope/run`);
    expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);
    const gqlMissing = await owner.graphql(`mutation($slug: String!) { runCronJob(slug: $slug, id: "nope") { __typename ... on Error { code } } }`, { slug });
    expect(gqlMissing.body.data.runCronJob).toEqual({ __typename: "NotFoundError", code: "not_found" });
  });

  it("skips a minute while the job's previous run still runs, saying so in the runtime log", async () => {
    const slow = (await jobs())[2]!;
    const running = await owner.post(`/api/apps/${slug}/cron/${slow.id}/run`);
    expect(running.body.status).toBe("RUNNING");
    await tick("2031-01-01T00:10:00");
    expect((await jobs())[2]!.lastRun!.id).toBe(running.body.id);
    const line = await waitFor(async () => {
      const logs = (await owner.get(`/api/apps/${slug}/logs?kind=runtime&limit=1000`)).body as { stream: string; line: string }[];
      return logs.find((l) => l.stream === "system" && l.line.includes("skipped"));
    });
    expect(line.line).toBe(`Cron job ${slow.id} (\`sleep 25\`) skipped its run of 2031-01-01 00:10 UTC: its previous run ${running.body.id} still runs.`);
    expect((await owner.post(`/api/apps/${slug}/runs/${running.body.id}/cancel`)).body.status).toBe("CANCELED");
  });

  it("fails a build whose app.json has a bad entry, naming it, and the live release keeps its jobs", async () => {
    const before = (await jobs()).map((j) => j.id);
    const cases: [unknown, RegExp][] = [
      [{ cron: { command: "x" } }, /app\.json "cron": Give a list of jobs/],
      [{ cron: [EVERY_MINUTE, { command: "echo x", schedule: "61 * * * *" }] }, /app\.json "cron\[1\]\.schedule": The minute field "61" holds 61: use 0–59\./],
      [{ cron: [{ schedule: "* * * * *" }] }, /app\.json "cron\[0\]\.command": Give the command to run/],
      [{ cron: [{ command: "echo a\u0000b", schedule: "* * * * *" }] }, /app\.json "cron\[0\]\.command": The command must not contain NUL/],
      [{ cron: [EVERY_MINUTE, EVERY_MINUTE] }, /app\.json "cron\[1\]": The same command and schedule as cron\[0\]/],
    ];
    for (const [appJson, reason] of cases) {
      const failed = await deploy(owner, slug, await zipFolder(null, nodeApp(appJson)));
      expect(failed.status, JSON.stringify(appJson)).toBe("FAILED");
      expect(failed.error, JSON.stringify(appJson)).toMatch(reason);
    }
    expect((await jobs()).map((j) => j.id)).toEqual(before);
    expect((await owner.get(`/api/apps/${slug}`)).body.status).toBe("RUNNING");
    const served = await requestApp(server.url, `${slug}.${server.config.appsDomain}`);
    expect([served.status, served.body]).toEqual([200, "ok"]);
  });

  it("follows the live release: a deploy replaces the jobs, a rollback brings its release's back with their ids and history", async () => {
    const before = await jobs();
    const second = await deploy(owner, slug, await zipFolder(null, nodeApp({ cron: [{ command: "echo hourly", schedule: "@hourly" }] })));
    expect(second.status).toBe("LIVE");
    expect((await jobs()).map((j) => [j.command, j.schedule])).toEqual([["echo hourly", "@hourly"]]);
    const rollback = await owner.post(`/api/apps/${slug}/rollback`, { deployment: firstDeployment });
    expect(rollback.status).toBe(202);
    await waitFor(async () => (await owner.get(`/api/apps/${slug}`)).body.deployments.find((d: { id: string; status: string }) => d.id === rollback.body.id && d.status === "LIVE"), 60_000, "the rollback");
    const after = await jobs();
    expect(after.map((j) => [j.id, j.command, j.schedule, j.lastRun?.id])).toEqual(before.map((j) => [j.id, j.command, j.schedule, j.lastRun?.id]));
  });

  it("runs nothing while the app is stopped (no next run shown)", async () => {
    expect((await owner.post(`/api/apps/${slug}/stop`)).status).toBe(200);
    const [job] = await jobs();
    expect(job!.nextRunAt).toBeNull();
    const last = job!.lastRun?.id;
    await tick("2031-01-01T00:05:00");
    expect((await jobs())[0]!.lastRun?.id).toBe(last);
  });
});
