// Waking a sleeping app: from a request sent to an app that sleeps (no process of it runs) to its answer, through
// the platform's router, against the floor of the same run: on the local runtime a plain `node server.js` spawned
// to its first answer (bench/spawn-to-answer.ts), on Docker `docker start` of a stopped container of the same base
// image running the same server to its first answer. The sleep timer runs on an injected clock that the bench moves
// (a minute of idleness without waiting for it).
import { execFileSync } from "node:child_process";
import { idleMinutes } from "../../test/helpers/sleep.ts";
import { FakeClock } from "../../test/helpers/fake-clock.ts";
import { signUp, startSlipway } from "../lib/slipway.ts";
import { firstAnswer, spawnToAnswer } from "../spawn-to-answer.ts";
import { HostingClient, nodeApp, percentile, zipOf } from "./client.ts";

const GOAL = 3;
const ABSOLUTE_GOAL_MS = 300;
const SERVER_JS = `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`;

export interface WakeResult {
  runtime: string;
  wakeP50: number;
  wakeP95: number;
  floorName: string;
  floorP50: number;
}

/** Wake times through Slipway on `runtime`, `rounds` of them after a warm-up. */
async function wakes(runtime: "local" | "docker", rounds: number): Promise<number[]> {
  const clock = new FakeClock(Date.parse("2031-01-01T00:00:00Z"));
  const server = await startSlipway({ RUNTIME: runtime, DEFAULT_REQUESTS_PER_MINUTE: "100000000" }, undefined, { clock });
  try {
    const client = new HostingClient(server.url, await signUp(server.url, `bench-wake-${runtime}-${process.pid}`));
    const slug = `bench-wake-${runtime}`;
    await client.createApp(slug);
    const deployment = await client.upload(slug, await zipOf(nodeApp(SERVER_JS)));
    await client.waitForSettled(slug, deployment.id);
    await client.api("PATCH", `/api/apps/${slug}`, { sleepAfterMinutes: 1 });
    const { sleeps } = server.slipway.platform;
    const times: number[] = [];
    for (let round = 0; round <= rounds; round++) {
      await idleMinutes(clock, sleeps, 1);
      const app = await client.api("GET", `/api/apps/${slug}`);
      if (app.status !== "SLEEPING") throw new Error(`${slug} did not go to sleep (${app.status})`);
      const since = performance.now();
      const answer = await client.get(slug);
      const ms = performance.now() - since;
      if (answer?.status !== 200 || answer.body !== "ok") throw new Error(`the wake answered ${answer?.status} ${answer?.body}`);
      if (round > 0) times.push(ms);
    }
    return times;
  } finally {
    await server.close();
  }
}

/** `docker start` of a stopped container (the runtime's base image, the same server) to its first answer. */
async function dockerStartToAnswer(rounds: number): Promise<number> {
  const image = execFileSync("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}", "slipway/base"], { encoding: "utf8" }).trim().split("\n")[0];
  if (!image) throw new Error("no slipway/base image: the docker runtime makes it at its first deploy");
  const name = `slipway-bench-wake-floor-${process.pid}`;
  execFileSync("docker", ["create", "--name", name, "-e", "PORT=8080", image, "node", "-e", SERVER_JS], { stdio: "ignore" });
  try {
    const times: number[] = [];
    for (let round = 0; round <= rounds; round++) {
      const since = performance.now();
      execFileSync("docker", ["start", name], { stdio: "ignore" });
      const ip = execFileSync("docker", ["inspect", "-f", "{{.NetworkSettings.IPAddress}}", name], { encoding: "utf8" }).trim();
      const ms = await firstAnswer(`http://${ip}:8080/`, since);
      execFileSync("docker", ["stop", "-t", "0", name], { stdio: "ignore" });
      if (round > 0) times.push(ms);
    }
    return percentile(times, 50);
  } finally {
    execFileSync("docker", ["rm", "-f", name], { stdio: "ignore" });
  }
}

export async function benchWake(runtimes: string[], rounds: number): Promise<WakeResult[]> {
  const results: WakeResult[] = [];
  for (const runtime of runtimes) {
    if (runtime !== "local" && runtime !== "docker") throw new Error(`--wake runs on local or docker, not ${runtime}`);
    console.log(`# wake on ${runtime}: ${rounds} rounds`);
    const times = await wakes(runtime, rounds);
    const floor = runtime === "local" ? { name: "plain `node server.js`, spawn to first answer", p50: (await spawnToAnswer(rounds)).plainMs } : { name: "`docker start` of a stopped container of the base image running the same server, to first answer", p50: await dockerStartToAnswer(rounds) };
    results.push({ runtime, wakeP50: percentile(times, 50), wakeP95: percentile(times, 95), floorName: floor.name, floorP50: floor.p50 });
  }
  return results;
}

export function wakeTable(results: WakeResult[], rounds: number): string {
  const rows = results.map((r) => {
    const ratio = r.wakeP50 / r.floorP50;
    const absolute = r.runtime === "local" ? (r.wakeP50 < ABSOLUTE_GOAL_MS ? " ✅" : " ❌") : "";
    return `| ${r.runtime} | ${r.wakeP50.toFixed(0)}${absolute} | ${r.wakeP95.toFixed(0)} | ${r.floorName}: ${r.floorP50.toFixed(0)} | **${ratio.toFixed(2)}×** ${ratio <= GOAL ? "✅" : "❌"} |`;
  });
  return [
    `### Wake: a request to a sleeping app, answered (median and p95 of ${rounds}, after a warm-up round)`,
    "",
    `Goals: p50 within ${GOAL}× the floor of the same run, and under ${ABSOLUTE_GOAL_MS} ms on the local runtime.`,
    "",
    "| runtime | wake p50 ms | wake p95 ms | floor p50 ms | wake / floor |",
    "|---|---:|---:|---|---:|",
    ...rows,
    "",
    "Wake: the sleeping app's route holds the request while the engine starts its web instance (the release, sandbox network and cgroup kept), waits for its health check (a TCP connect) and routes it; the request is then proxied. On Docker the instance is a new container of the release image (a sleeping app's container is removed, not kept stopped).",
    "",
  ].join("\n");
}
