// One-off runs (`slipway run echo ok`) against the floor: the same sandboxed command spawned directly through the
// local runtime driver, in the same bench run. Slipway's side is timed from the POST to the moment its output is
// readable (the run reads as finished only once every line of it is stored), polled every 2 ms; the floor from
// driver.run() to its resolution with the output in hand. Both after a warm-up round (an app's first sandbox
// also creates its namespace and cgroup).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createLocalDriver } from "../../server/platform/runtime/local/driver.ts";
import { HostingClient, nodeApp, percentile, zipOf } from "./client.ts";

const COMMAND = "echo ok";
const LIMITS = { memoryBytes: 256 * 1024 * 1024, cpuPercent: 100, pids: 64 };
const GOAL = 3;

interface RunView {
  id: string;
  status: string;
}

async function slipwayRun(client: HostingClient, slug: string): Promise<number> {
  const since = performance.now();
  const run: RunView = await client.api("POST", `/api/apps/${slug}/runs`, { command: COMMAND });
  for (;;) {
    const now: RunView = await client.api("GET", `/api/apps/${slug}/runs/${run.id}`);
    if (now.status !== "QUEUED" && now.status !== "RUNNING") {
      const lines: { line: string }[] = await client.api("GET", `/api/apps/${slug}/logs?kind=run&run=${run.id}`);
      if (now.status !== "SUCCEEDED" || !lines.some((l) => l.line === "ok")) throw new Error(`run ${run.id} ended ${now.status} without its output`);
      return performance.now() - since;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function directRun(driver: Awaited<ReturnType<typeof createLocalDriver>>, workDir: string): Promise<number> {
  const since = performance.now();
  let output = "";
  const result = await driver.run({
    appKey: "bench-run",
    workDir,
    argv: ["/bin/sh", "-c", COMMAND],
    env: {},
    limits: LIMITS,
    onOutput: (_stream, chunk) => (output += chunk.toString()),
    timeoutMs: 60_000,
  });
  if (result.code !== 0 || output.trim() !== "ok") throw new Error(`the direct run failed: ${JSON.stringify(result)}`);
  return performance.now() - since;
}

export async function benchRuns(client: HostingClient, rounds: number): Promise<string> {
  const slug = `bench-runs-${process.pid}`;
  await client.createApp(slug);
  const deployment = await client.upload(slug, await zipOf(nodeApp(`require("http").createServer((q, s) => s.end("up")).listen(process.env.PORT);`)));
  await client.waitForSettled(slug, deployment.id);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-runs-"));
  const workDir = path.join(dataDir, "release");
  fs.mkdirSync(workDir);
  const driver = await createLocalDriver({ dataDir, allowPartial: false });
  const slipway: number[] = [];
  const direct: number[] = [];
  try {
    for (let round = 0; round <= rounds; round++) {
      const viaSlipway = await slipwayRun(client, slug);
      const viaDriver = await directRun(driver, workDir);
      if (round === 0) continue;
      slipway.push(viaSlipway);
      direct.push(viaDriver);
    }
  } finally {
    await driver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const [p50, p95, floor50, floor95] = [percentile(slipway, 50), percentile(slipway, 95), percentile(direct, 50), percentile(direct, 95)];
  const ratio = p50 / floor50;
  return [
    `### One-off runs: \`${COMMAND}\` from the request to its output (${rounds} rounds after a warm-up)`,
    "",
    "| | p50 ms | p95 ms |",
    "|---|---:|---:|",
    `| Slipway: \`POST /api/apps/:slug/runs\` → the run finished with its output stored (polled every 2 ms) | ${p50.toFixed(0)} | ${p95.toFixed(0)} |`,
    `| floor: the same command spawned directly through the local runtime driver (sandboxed, same limits) | ${floor50.toFixed(0)} | ${floor95.toFixed(0)} |`,
    "",
    `Slipway takes **${ratio.toFixed(2)}×** the direct spawn at the median (goal: at most ${GOAL}×, ${ratio <= GOAL ? "met" : "missed"}).`,
    "",
  ].join("\n");
}
