// The app.json "cron" list as the build reads it: each problem names its entry and field, defaults are filled in,
// and a job's id is stable per app, command and schedule.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readAppJson } from "../../../server/hosting/builders/app-json.ts";
import { cronJobId, cronProblems } from "../../../server/hosting/cron/entries.ts";

async function appJson(value: unknown) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-appjson-"));
  try {
    fs.writeFileSync(path.join(dir, "app.json"), JSON.stringify(value));
    return await readAppJson(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("app.json cron", () => {
  it("reads the jobs with their defaults, beside the health check", async () => {
    expect(await appJson({ cron: [{ command: "echo a", schedule: " */5 * * * * " }, { command: "echo b", schedule: "@daily", timeoutSeconds: 60 }] })).toEqual({
      cron: [
        { command: "echo a", schedule: "*/5 * * * *", timeoutSeconds: 3600 },
        { command: "echo b", schedule: "@daily", timeoutSeconds: 60 },
      ],
    });
    expect((await appJson({ healthcheck: { path: "/up" } })).cron).toEqual([]);
    expect((await appJson({ cron: null })).cron).toEqual([]);
  });

  it("names each bad entry and field with the reason", async () => {
    expect(cronProblems({})).toEqual([{ field: "cron", message: expect.stringMatching(/Give a list of jobs/) }]);
    const many = Array.from({ length: 51 }, (_, i) => ({ command: `echo ${i}`, schedule: "* * * * *" }));
    expect(cronProblems(many)).toEqual([{ field: "cron", message: "Give at most 50 jobs (there are 51)." }]);
    expect(cronProblems(many.slice(0, 50))).toEqual([]);
    expect(
      cronProblems([
        "echo",
        { schedule: "* * * * *" },
        { command: "echo a\0b", schedule: "* * * * *" },
        { command: "echo", schedule: "* * *" },
        { command: "echo", schedule: 5 },
        { command: "echo", schedule: "* * * * *", timeoutSeconds: 0 },
        { command: "echo", schedule: "* * * * *" },
      ]).map((p) => p.field),
    ).toEqual(["cron[0]", "cron[1].command", "cron[2].command", "cron[3].schedule", "cron[4].schedule", "cron[5].timeoutSeconds", "cron[6]"]);
    await expect(appJson({ cron: [{ command: "echo", schedule: "* * * * *" }, { command: "echo", schedule: "* 25 * * *" }] })).rejects.toThrow(
      'app.json "cron[1].schedule": The hour field "25" holds 25: use 0–23.',
    );
  });

  it("gives a job an id stable per app, command and schedule", () => {
    const job = { command: "echo", schedule: "* * * * *" };
    expect(cronJobId("app1", job)).toBe(cronJobId("app1", { ...job }));
    expect(new Set([cronJobId("app1", job), cronJobId("app2", job), cronJobId("app1", { ...job, command: "echo x" }), cronJobId("app1", { ...job, schedule: "@daily" })]).size).toBe(4);
  });
});
