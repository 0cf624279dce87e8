// Cron start times: how late after its minute boundary a cron job's command runs, over N minutes. The scheduler's
// clock is injected (as in the tests): the bench moves it to each boundary and takes the wall time there; the
// lateness is the first output line's timestamp (stored by the platform as it arrives) minus that time. It covers
// the tick (reading the due jobs, claiming the minute in the database), the run's record, the sandbox's start and
// the command's first output; not the timer's own precision (Node's timers fire within a few ms). The floor is
// the same command spawned directly through the local runtime driver at a timer of its own, in the same run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createLocalDriver } from "../../server/platform/runtime/local/driver.ts";
import { FakeClock } from "../../test/helpers/fake-clock.ts";
import { signUp, startSlipway } from "../lib/slipway.ts";
import { HostingClient, percentile, zipOf } from "./client.ts";

const COMMAND = "echo tick";
const GOAL_MS = 1000;
const MINUTE = 60_000;
const LIMITS = { memoryBytes: 256 * 1024 * 1024, cpuPercent: 100, pids: 64 };

interface RunView {
  id: string;
  status: string;
  trigger: string;
}

/** Lateness of the newest cron run's first output line after `firedAt` (wall ms), once the run finished. */
async function latenessOf(client: HostingClient, slug: string, before: Set<string>, firedAt: number): Promise<number> {
  for (;;) {
    const runs: RunView[] = await client.api("GET", `/api/apps/${slug}/runs`);
    const run = runs.find((r) => r.trigger === "cron" && !before.has(r.id));
    if (run && run.status !== "QUEUED" && run.status !== "RUNNING") {
      if (run.status !== "SUCCEEDED") throw new Error(`cron run ${run.id} ended ${run.status}`);
      before.add(run.id);
      const lines: { line: string; timestamp: string; stream: string }[] = await client.api("GET", `/api/apps/${slug}/logs?kind=run&run=${run.id}`);
      const first = lines.find((l) => l.stream === "stdout");
      if (!first) throw new Error(`cron run ${run.id} has no output`);
      return Date.parse(first.timestamp) - firedAt;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function directLateness(driver: Awaited<ReturnType<typeof createLocalDriver>>, workDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const firedAt = Date.now();
    let seen = false;
    driver
      .run({
        appKey: "bench-cron",
        workDir,
        argv: ["/bin/sh", "-c", COMMAND],
        env: {},
        limits: LIMITS,
        timeoutMs: 60_000,
        onOutput: () => {
          if (!seen) resolve(Date.now() - firedAt);
          seen = true;
        },
      })
      .catch(reject);
  });
}

export async function benchCron(rounds: number): Promise<string> {
  const clock = new FakeClock(Date.parse("2031-01-01T00:00:30Z"));
  const server = await startSlipway({ DEFAULT_REQUESTS_PER_MINUTE: "100000000" }, undefined, { clock });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-cron-"));
  const workDir = path.join(dataDir, "release");
  fs.mkdirSync(workDir);
  const driver = await createLocalDriver({ dataDir, allowPartial: false });
  const slipway: number[] = [];
  const direct: number[] = [];
  try {
    const client = new HostingClient(server.url, await signUp(server.url, `bench-cron-${process.pid}`));
    const slug = `bench-cron-${process.pid}`;
    await client.createApp(slug);
    const files = {
      "package.json": JSON.stringify({ name: "bench-cron", version: "1.0.0" }),
      "server.js": `require("http").createServer((q, s) => s.end("up")).listen(process.env.PORT);`,
      "app.json": JSON.stringify({ cron: [{ command: COMMAND, schedule: "* * * * *" }] }),
    };
    const deployment = await client.upload(slug, await zipOf(files));
    if ((await client.waitForSettled(slug, deployment.id)).status !== "LIVE") throw new Error("the app did not deploy");
    const seen = new Set<string>(((await client.api("GET", `/api/apps/${slug}/runs`)) as RunView[]).map((r) => r.id));
    // Round 0 warms up (the app's first run, the driver's first sandbox).
    for (let round = 0; round <= rounds; round++) {
      const boundary = Math.floor(clock.now() / MINUTE) * MINUTE + MINUTE;
      const firedAt = Date.now();
      await clock.advanceTo(boundary);
      const late = await latenessOf(client, slug, seen, firedAt);
      const floor = await directLateness(driver, workDir);
      console.log(`  minute ${round}: the command's first line ${late} ms after the boundary (direct: ${floor} ms)`);
      if (round === 0) continue;
      slipway.push(late);
      direct.push(floor);
    }
  } finally {
    await driver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await server.close();
  }
  const [p50, p99, floor50, floor99] = [percentile(slipway, 50), percentile(slipway, 99), percentile(direct, 50), percentile(direct, 99)];
  return [
    "## Cron: start times after the minute boundary",
    "",
    `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:hosting -- --cron ${rounds}\``,
    "- The real server in the bench process (fresh SQLite, silent logs), sandboxed local runtime; the scheduler's clock moved to each boundary by the bench.",
    "",
    `### A job on \`* * * * *\` running \`${COMMAND}\`: from the minute boundary to its first output line (${rounds} minutes after a warm-up)`,
    "",
    "| | p50 ms | p99 ms |",
    "|---|---:|---:|",
    `| Slipway: the tick claims the minute, records the run and starts it in the app's sandbox | ${p50} | ${p99} |`,
    `| floor: the same command spawned directly through the local runtime driver | ${floor50} | ${floor99} |`,
    "",
    `p99 **${p99} ms** after the boundary (goal: within ${GOAL_MS} ms, ${p99 <= GOAL_MS ? "met" : "missed"}); ${(p50 / floor50).toFixed(2)}× the direct spawn at the median.`,
    "",
  ].join("\n");
}
