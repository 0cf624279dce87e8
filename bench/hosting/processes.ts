// A web-and-worker deploy against the same deploy of web alone, in the same bench run: the deploys alternate
// between two apps that differ only by the worker line of their Procfile. A deploy's time is the sum of its
// pipeline steps up to the retire step (retire waits the same 1 s drain for both after the switch, and stops the
// previous worker meanwhile). The floor is the worker's own start, directly through the local runtime driver
// (sandboxed, same limits, with the app's data directory bound as Slipway does).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createLocalDriver } from "../../server/platform/runtime/local/driver.ts";
import type { Instance } from "../../server/platform/runtime/types.ts";
import { HostingClient, percentile, zipOf } from "./client.ts";

const LIMITS = { memoryBytes: 256 * 1024 * 1024, cpuPercent: 100, pids: 64 };
const WORKER = `console.log("worker up"); setInterval(() => {}, 1000);`;

const files = (text: string, withWorker: boolean): Record<string, string> => ({
  "package.json": JSON.stringify({ name: "bench-app", version: "1.0.0" }),
  "server.js": `require("http").createServer((q, s) => s.end(${JSON.stringify(text)})).listen(process.env.PORT);`,
  Procfile: withWorker ? "web: node server.js\nworker: node worker.js\n" : "web: node server.js\n",
  ...(withWorker ? { "worker.js": WORKER } : {}),
});

/** One deploy's pipeline time before retire, and its workers step. */
async function deployOnce(client: HostingClient, slug: string, text: string, withWorker: boolean): Promise<{ ms: number; workers: number }> {
  const deployment = await client.upload(slug, await zipOf(files(text, withWorker)));
  const settled = await client.waitForSettled(slug, deployment.id);
  if (settled.status !== "LIVE") throw new Error(`${slug}: ${settled.status} ${settled.error}`);
  const beforeRetire = settled.steps.filter((s) => s.name !== "retire");
  return { ms: beforeRetire.reduce((sum, s) => sum + s.ms, 0), workers: settled.steps.find((s) => s.name === "workers")?.ms ?? 0 };
}

export async function benchProcesses(client: HostingClient, rounds: number): Promise<string> {
  const webOnly = `bench-web-${process.pid}`;
  const withWorker = `bench-worker-${process.pid}`;
  await client.createApp(webOnly);
  await client.createApp(withWorker);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-workers-"));
  const workDir = path.join(dataDir, "release");
  fs.mkdirSync(workDir);
  fs.writeFileSync(path.join(workDir, "worker.js"), WORKER);
  const appData = path.join(dataDir, "app-data");
  const driver = await createLocalDriver({ dataDir, allowPartial: false });
  const web: number[] = [];
  const both: number[] = [];
  const step: number[] = [];
  const floor: number[] = [];
  let previous: Instance | null = null;
  try {
    // Round 0 warms each app up (its first start creates its namespace and cgroups), and the direct worker too.
    for (let round = 0; round <= rounds; round++) {
      const a = await deployOnce(client, webOnly, `web ${round}`, false);
      const b = await deployOnce(client, withWorker, `both ${round}`, true);
      await previous?.stop(5000);
      const since = performance.now();
      previous = await driver.start({ appKey: "bench-worker", instanceId: `w${round}`, index: 1, process: "worker", workDir, dataDir: appData, argv: ["node", "worker.js"], env: {}, limits: LIMITS, onOutput: () => {} });
      const direct = performance.now() - since;
      console.log(`  round ${round}: web ${a.ms.toFixed(0)} ms, web + worker ${b.ms.toFixed(0)} ms (workers step ${b.workers} ms), direct worker start ${direct.toFixed(0)} ms`);
      if (round === 0) continue;
      web.push(a.ms);
      both.push(b.ms);
      step.push(b.workers);
      floor.push(direct);
    }
  } finally {
    await previous?.stop(5000);
    await driver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const [web50, both50, step50, floor50] = [percentile(web, 50), percentile(both, 50), percentile(step, 50), percentile(floor, 50)];
  const extra = both50 - web50;
  return [
    `### Web and worker: a deploy against the same deploy of web alone (${rounds} rounds after a warm-up, alternating)`,
    "",
    "| | p50 ms | p95 ms |",
    "|---|---:|---:|",
    `| deploy of web alone (pipeline steps before retire) | ${web50.toFixed(0)} | ${percentile(web, 95).toFixed(0)} |`,
    `| deploy of web + worker (the same, with the workers step) | ${both50.toFixed(0)} | ${percentile(both, 95).toFixed(0)} |`,
    `| its workers step (start the new worker; the previous one stops during the drain) | ${step50.toFixed(0)} | ${percentile(step, 95).toFixed(0)} |`,
    `| floor: the worker's own start, directly through the local runtime driver | ${floor50.toFixed(0)} | ${percentile(floor, 95).toFixed(0)} |`,
    "",
    `The worker adds **${extra.toFixed(0)} ms** to the deploy at the median; its own start takes ${floor50.toFixed(0)} ms directly (goal: no more than that, with 10 ms of measuring noise: ${extra <= floor50 + 10 ? "met" : "missed"}). The web process answers before the workers step begins either way.`,
    "",
  ].join("\n");
}
