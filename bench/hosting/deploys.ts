// Deploy latency (upload → the new release answers through the router) and failures under load while
// redeploying.
import { nodeApp, percentile, startLoad, zipOf, type HostingClient } from "./client.ts";

const serving = (text: string) => `require("http").createServer((q, s) => s.end(${JSON.stringify(text)})).listen(process.env.PORT);`;

export interface DeployStats {
  text: string;
  p50: number;
  p95: number;
}

export interface RedeployStats {
  text: string;
  answered: number;
  failed: number;
  requestsPerSecond: number;
}

export async function benchDeploys(client: HostingClient, count: number): Promise<DeployStats> {
  const slug = `bench-deploy-${process.pid}`;
  await client.createApp(slug);
  const totals: number[] = [];
  const steps = new Map<string, number[]>();
  // One deploy first: an app's first start also creates its network namespace and cgroups.
  for (let i = 0; i <= count; i++) {
    const text = `release ${i}`;
    const zip = await zipOf(nodeApp(serving(text)));
    const began = performance.now();
    const deployment = await client.upload(slug, zip);
    await client.waitForAnswer(slug, text);
    const ms = performance.now() - began;
    const settled = await client.waitForSettled(slug, deployment.id);
    if (settled.status !== "LIVE") throw new Error(`deploy ${i}: ${settled.status} ${settled.error}`);
    console.log(`  deploy ${i}: ${ms.toFixed(0)} ms (${settled.steps.map((s) => `${s.name} ${s.ms}`).join(", ")})`);
    if (i === 0) continue;
    totals.push(ms);
    for (const step of settled.steps) steps.set(step.name, [...(steps.get(step.name) ?? []), step.ms]);
  }
  const p50 = percentile(totals, 50);
  const text = [
    `### Deploy: zip upload → the app answers through the router (${count} deploys after a first one)`,
    "",
    "| | ms |",
    "|---|---:|",
    `| p50 | ${p50.toFixed(0)} |`,
    `| p95 | ${percentile(totals, 95).toFixed(0)} |`,
    "",
    "Median time per pipeline step (the build log's order; `retire` runs after the switch, so it is not part of the time to answer):",
    "",
    `| ${[...steps.keys()].join(" | ")} |`,
    `|${[...steps.keys()].map(() => "---:").join("|")}|`,
    `| ${[...steps.values()].map((v) => percentile(v, 50).toFixed(1)).join(" | ")} |`,
    "",
    `The time covers the upload (checked at once), the queue, the fetch step (extracting the zip), detection, the (empty) build, starting the sandboxed process and the health check, and the route switch. Goal: p50 ≤ 500 ms: **${p50 <= 500 ? "met" : "missed"}** (${p50.toFixed(0)} ms).`,
    "",
  ].join("\n");
  return { text, p50, p95: percentile(totals, 95) };
}

export async function benchRedeployUnderLoad(client: HostingClient, count: number): Promise<RedeployStats> {
  const slug = `bench-redeploy-${process.pid}`;
  await client.createApp(slug);
  const first = await client.upload(slug, await zipOf(nodeApp(serving("v0"))));
  if ((await client.waitForSettled(slug, first.id)).status !== "LIVE") throw new Error("the first deploy failed");
  const load = startLoad({ url: `http://127.0.0.1:${client.port}/`, headers: { host: `${slug}.localhost:${client.port}` }, connections: 10 });
  const deployed: number[] = [];
  for (let i = 1; i <= count; i++) {
    const began = performance.now();
    const d = await client.upload(slug, await zipOf(nodeApp(serving(`v${i}`))));
    const settled = await client.waitForSettled(slug, d.id);
    if (settled.status !== "LIVE") throw new Error(`redeploy ${i}: ${settled.status} ${settled.error}`);
    await client.waitForAnswer(slug, `v${i}`);
    deployed.push(performance.now() - began);
  }
  const result = await load.stop();
  const failed = result.non2xx + result.errors + result.timeouts;
  console.log(`  ${result["2xx"]} answered 2xx, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  const text = [
    `### Redeploy under load: ${count} redeploys while 10 connections request the app through the router`,
    "",
    "| requests answered 2xx | non-2xx | connection errors | timeouts | req/s |",
    "|---:|---:|---:|---:|---:|",
    `| ${result["2xx"]} | ${result.non2xx} | ${result.errors} | ${result.timeouts} | ${Math.round(result.requests.average)} |`,
    "",
    `Each redeploy starts the new release beside the old one, switches the route once the new one answers, lets the old one finish what it serves (1 s), then stops it. Goal: 0 failed requests: **${failed === 0 ? "met" : "missed"}** (${failed}).`,
    "",
  ].join("\n");
  return { text, answered: result["2xx"], failed, requestsPerSecond: result.requests.average };
}
