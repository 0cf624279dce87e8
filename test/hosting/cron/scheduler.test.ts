// The cron scheduler on a fake clock and a real database: a job starts at its minute boundary, skips a minute while
// its previous run still runs (logged), is claimed once between two schedulers sharing the database, and at boot
// catches up a run due less than a minute ago, never one claimed already nor one further back. No test waits.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDb, type Db } from "../../../server/db/client.ts";
import { migrate } from "../../../server/db/migrate.ts";
import { CronScheduler, type CronJobRow } from "../../../server/hosting/cron/scheduler.ts";
import { FakeClock } from "../../helpers/fake-clock.ts";
import { createPostgresDatabase } from "../../helpers/server.ts";

const at = (text: string) => Date.parse(`${text}Z`);

let url: string;
let drop = async () => {};
let db: Db;
let appId: string;

beforeAll(async () => {
  if (process.env.TEST_DATABASE === "postgres") {
    ({ url, drop } = await createPostgresDatabase());
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-cron-"));
    url = `file:${path.join(dir, "cron.db")}`;
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  await migrate(url);
  db = createDb(url);
  const owner = await db.user.create({ data: { name: "cron-owner", email: "cron@example.test", passwordHash: "x" } });
  const app = await db.app.create({ data: { slug: "cron-app", name: "cron-app", ownerId: owner.id, status: "RUNNING" } });
  const live = await db.deployment.create({ data: { appId: app.id, source: "zip", status: "LIVE", releasePath: "/nowhere", web: { kind: "static", root: "." } } });
  await db.app.update({ where: { id: app.id }, data: { liveDeploymentId: live.id } });
  appId = app.id;
});
afterAll(async () => {
  await db?.$disconnect();
  await drop();
});
beforeEach(async () => {
  await db.run.deleteMany({});
  await db.cronJob.deleteMany({});
  await db.app.update({ where: { id: appId }, data: { status: "RUNNING" } });
});

const job = (schedule: string, id = "job1") => db.cronJob.create({ data: { id, appId, command: "echo tick", schedule, timeoutSeconds: 60, position: 0 } });

/** A scheduler whose runs are rows left RUNNING until the test finishes them. */
function scheduler(clock: FakeClock, database: Db = db) {
  const starts: { job: string; at: string }[] = [];
  const lines: string[] = [];
  const cron = new CronScheduler({
    db: database,
    clock,
    start: async (j: CronJobRow) => {
      starts.push({ job: j.id, at: new Date(clock.now()).toISOString() });
      await database.run.create({ data: { appId: j.appId, command: j.command, timeoutSeconds: j.timeoutSeconds, trigger: "cron", cronJobId: j.id, status: "RUNNING" } });
    },
    log: (_appId, line) => lines.push(line),
    onError: (error) => {
      throw error;
    },
  });
  const advanceTo = (time: string) => clock.advanceTo(at(time), () => cron.settled());
  return { cron, starts, lines, advanceTo };
}

const finishRuns = () => db.run.updateMany({ data: { status: "SUCCEEDED", finishedAt: new Date() } });

describe("the cron scheduler", () => {
  it("starts a job exactly at its minute boundary, and not before", async () => {
    await job("*/5 * * * *");
    const clock = new FakeClock(at("2026-03-01T10:01:30"));
    const { cron, starts, advanceTo } = scheduler(clock);
    cron.start();
    await advanceTo("2026-03-01T10:04:59.999");
    expect(starts).toEqual([]);
    await advanceTo("2026-03-01T10:05:00");
    expect(starts).toEqual([{ job: "job1", at: "2026-03-01T10:05:00.000Z" }]);
    await finishRuns();
    await advanceTo("2026-03-01T10:10:30");
    expect(starts.map((s) => s.at)).toEqual(["2026-03-01T10:05:00.000Z", "2026-03-01T10:10:00.000Z"]);
    await cron.close();
    expect(clock.pending).toBe(0);
  });

  it("skips a minute while the job's previous run still runs, saying so in the app's log", async () => {
    await job("* * * * *");
    const clock = new FakeClock(at("2026-03-01T10:00:30"));
    const { cron, starts, lines, advanceTo } = scheduler(clock);
    cron.start(); // catches up 10:00
    await cron.settled();
    await advanceTo("2026-03-01T10:01:00");
    expect(starts.map((s) => s.at)).toEqual(["2026-03-01T10:00:30.000Z"]);
    expect(lines).toEqual([expect.stringMatching(/^Cron job job1 \(`echo tick`\) skipped its run of 2026-03-01 10:01 UTC: its previous run \w+ still runs\.$/)]);
    await finishRuns();
    await advanceTo("2026-03-01T10:02:00");
    expect(starts.map((s) => s.at)).toEqual(["2026-03-01T10:00:30.000Z", "2026-03-01T10:02:00.000Z"]);
    await cron.close();
  });

  it("runs each minute once between two schedulers sharing one database", async () => {
    await job("* * * * *");
    const other = createDb(url);
    try {
      const [a, b] = [scheduler(new FakeClock(at("2026-03-01T10:00:05"))), scheduler(new FakeClock(at("2026-03-01T10:00:05")), other)];
      a.cron.start();
      b.cron.start();
      for (const minute of ["10:01", "10:02", "10:03", "10:04"]) {
        await Promise.all([a.cron.settled(), b.cron.settled()]);
        await finishRuns();
        await Promise.all([a.advanceTo(`2026-03-01T${minute}:00`), b.advanceTo(`2026-03-01T${minute}:00`)]);
      }
      const minutes = [...a.starts, ...b.starts].map((s) => s.at.slice(11, 16)).sort();
      expect(minutes).toEqual(["10:00", "10:01", "10:02", "10:03", "10:04"]);
      expect(await db.cronTick.count({ where: { cronJobId: "job1" } })).toBe(5);
      await Promise.all([a.cron.close(), b.cron.close()]);
    } finally {
      await other.$disconnect();
    }
  });

  it("at boot, runs a run due less than a minute ago once, and skips one due longer ago", async () => {
    await job("0 * * * *");
    // Down at 11:00:00, back at 11:00:40: the 11:00 run is still due.
    const first = scheduler(new FakeClock(at("2026-03-01T11:00:40")));
    first.cron.start();
    await first.cron.close();
    expect(first.starts.map((s) => s.at)).toEqual(["2026-03-01T11:00:40.000Z"]);
    await finishRuns();
    // Restarted again within the minute: claimed already, not run twice.
    const second = scheduler(new FakeClock(at("2026-03-01T11:00:50")));
    second.cron.start();
    await second.cron.close();
    expect(second.starts).toEqual([]);
    // Down over 12:00 and back at 12:01:05: the 12:00 run is skipped (as Heroku Scheduler does), 13:00 runs.
    const third = scheduler(new FakeClock(at("2026-03-01T12:01:05")));
    third.cron.start();
    await third.advanceTo("2026-03-01T13:00:00");
    expect(third.starts.map((s) => s.at)).toEqual(["2026-03-01T13:00:00.000Z"]);
    await third.cron.close();
  });

  it("runs nothing for a stopped app, nor for one without a live release", async () => {
    await job("* * * * *");
    await db.app.update({ where: { id: appId }, data: { status: "STOPPED" } });
    const clock = new FakeClock(at("2026-03-01T14:00:30"));
    const { cron, starts, advanceTo } = scheduler(clock);
    cron.start();
    await advanceTo("2026-03-01T14:02:00");
    expect(starts).toEqual([]);
    await db.app.update({ where: { id: appId }, data: { status: "RUNNING", liveDeploymentId: null } });
    await advanceTo("2026-03-01T14:03:00");
    expect(starts).toEqual([]);
    await cron.close();
    const live = await db.deployment.findFirstOrThrow({ where: { appId } });
    await db.app.update({ where: { id: appId }, data: { liveDeploymentId: live.id } });
  });
});
