// `npm run bench:hosting -- --runtime local,docker`: deploy time and redeploy-under-load failures of the same app on
// each runtime driver, one fresh platform per runtime, side by side.
import os from "node:os";
import { createDockerClient, LABEL, platformId } from "../../server/platform/runtime/docker/client.ts";
import { signUp, startSlipway } from "../lib/slipway.ts";
import { HostingClient } from "./client.ts";
import { benchDeploys, benchRedeployUnderLoad, type DeployStats, type RedeployStats } from "./deploys.ts";

const RUNTIMES = ["local", "docker", "swarm"];

export async function benchRuntimes(runtimes: string[], deploys: number): Promise<string> {
  const rows: { runtime: string; deploy: DeployStats; redeploy: RedeployStats }[] = [];
  for (const runtime of runtimes) {
    if (!RUNTIMES.includes(runtime)) throw new Error(`--runtime: expected ${RUNTIMES.join(" or ")}, not ${runtime}`);
    const server = await startSlipway({ RUNTIME: runtime, DEFAULT_REQUESTS_PER_MINUTE: "100000000", DEFAULT_MAX_APPS: "100" });
    try {
      const client = new HostingClient(server.url, await signUp(server.url, `bench-${runtime}-${process.pid}`));
      console.log(`# ${runtime}: ${deploys} zip deploys`);
      const deploy = await benchDeploys(client, deploys);
      console.log(`# ${runtime}: ${deploys} redeploys under load`);
      const redeploy = await benchRedeployUnderLoad(client, deploys);
      rows.push({ runtime, deploy, redeploy });
    } finally {
      await server.close();
      // Swarm services outlive the platform (the next boot adopts them): the bench's are removed.
      if (runtime === "swarm") await removeServices(server.dataDir);
    }
  }
  return [
    "## Hosting engine on each runtime: deploy time and redeploys under load",
    "",
    `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:hosting -- --runtime ${runtimes.join(",")} --deploys ${deploys}\``,
    "- One fresh platform per runtime (the real server in the bench process, SQLite, silent logs); the same Node app with no dependencies; apps reached through the platform's own port by `Host: <slug>.localhost`.",
    "",
    `| runtime | deploy p50 ms | deploy p95 ms | redeploys under load | requests answered 2xx | failed | req/s through the router |`,
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.runtime} | ${r.deploy.p50.toFixed(0)} | ${r.deploy.p95.toFixed(0)} | ${deploys} | ${r.redeploy.answered} | ${r.redeploy.failed} | ${Math.round(r.redeploy.requestsPerSecond)} |`,
    ),
    "",
    `Deploy: zip upload → the new release answers through the router (after a first deploy). The app has no dependencies, so no build step runs on either runtime; on docker the start step makes the release image (\`slipway/<slug>:<deployment>\`: the release unpacked into a container of the cached base image and committed) and creates and starts the container on the app's network; on swarm it makes the same image, then a start-first service update: the new task's health check must pass and Swarm's 3 s update monitor end before the deployment is LIVE (the new task takes traffic as soon as it is healthy). Load average when the run ended: ${os.loadavg().map((l) => l.toFixed(1)).join(", ")} on ${os.availableParallelism()} CPUs (other work shares the machine: compare the rows of one run, not across runs).`,
    "",
  ].join("\n");
}

async function removeServices(dataDir: string): Promise<void> {
  const docker = createDockerClient(process.env.DOCKER_HOST);
  const filters = { label: [`${LABEL.platform}=${platformId(dataDir)}`] };
  for (const service of await docker.listServices({ filters } as object)) await docker.getService(service.ID).remove().catch(() => {});
}
