// `npm run bench:hosting`: the hosting engine's goals, measured on a real server in this process with the
// sandboxed local runtime (needs root), and written to bench/RESULTS.md (section "hosting").
//   deploy     zip upload → the new release answers through the router, p50/p95 over N deploys, time per step
//   push       signed GitHub push → the new commit answers through the router, p50/p95 over N pushes
//   redeploy   requests failed through the router while the app is redeployed N times under load
//   logs       an app printing 10,000 lines/s for 10 s: lines lost, line-to-subscriber latency, API p99 meanwhile
//   sandbox    spawn to first answer of the same app, plain vs sandboxed
// Options: --deploys N (default 10), --no-write.
// --languages python,go,dockerfile (or some of them): only the language builds against the same commands by hand
// (languages.ts), written as section "hosting-languages"; --rounds N (default 3).
// --runs N: only one-off runs (`echo ok`) against the same command spawned directly (runs.ts), written as section
// "hosting-runs".
// --cron N: only cron start times after the minute boundary over N minutes (cron.ts), written as section "hosting-cron".
// --processes N: only web-and-worker deploys against web alone (processes.ts), written as section "hosting-processes".
// --metrics N: only what app metrics cost: router throughput with and without them in N paired rounds, and the
// sampling of 100 instances' cgroups (metrics.ts), written as section "hosting-metrics".
// --wake N: only waking a sleeping app, on --runtime local,docker (default local), against the floor of the same run
// (wake.ts), written as section "hosting-wake".
// --drains N: only log drains: an app printing 10,000 lines/s into a syslog drain against no drain and a drain that is
// down, N rounds (drains.ts), written as section "hosting-drains".
// --runtime local,docker (or one of them): only deploy and redeploy-under-load, on each runtime in turn, written as
// the comparison table of section "hosting-runtimes" (right after this one).
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { writeSection } from "../lib/report.ts";
import { signUp, startSlipway } from "../lib/slipway.ts";
import { spawnToAnswer } from "../spawn-to-answer.ts";
import { benchDeploys, benchRedeployUnderLoad } from "./deploys.ts";
import { benchPushDeploys } from "./github.ts";
import { benchLogs } from "./logs.ts";
import { benchRuntimes } from "./runtimes.ts";
import { benchRuns } from "./runs.ts";
import { benchProcesses } from "./processes.ts";
import { benchCron } from "./cron.ts";
import { benchWake, wakeTable } from "./wake.ts";
import { benchMetrics } from "./metrics.ts";
import { benchDrains } from "./drains.ts";
import { LANGUAGES, benchLanguage, languageBuildSettings, prepareDockerFrom } from "./languages.ts";
import { GitHubDouble } from "../../test/helpers/git.ts";
import { HostingClient } from "./client.ts";

const RESULTS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../RESULTS.md");

async function main() {
  const { values } = parseArgs({
    options: { deploys: { type: "string" }, "no-write": { type: "boolean" }, runtime: { type: "string" }, languages: { type: "string" }, rounds: { type: "string" }, runs: { type: "string" }, processes: { type: "string" }, cron: { type: "string" }, wake: { type: "string" }, metrics: { type: "string" }, drains: { type: "string" } },
  });
  if (values.runs) {
    const body = await benchOneOffRuns(Number(values.runs));
    console.log(`\n${body}`);
    if (!values["no-write"]) writeSection(RESULTS_FILE, "hosting-runs", body);
    return;
  }
  if (values.wake) {
    const rounds = Number(values.wake);
    const runtimes = (values.runtime ?? "local").split(",");
    const body = [
      "## Sleeping apps: waking on the first request",
      "",
      `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:hosting -- --wake ${rounds} --runtime ${runtimes.join(",")}\``,
      "- The real server in the bench process (fresh SQLite, silent logs); the app a Node server with no dependencies, reached through the platform's port by `Host: <slug>.localhost`.",
      "",
      wakeTable(await benchWake(runtimes, rounds), rounds),
    ].join("\n");
    console.log(`\n${body}`);
    if (!values["no-write"]) writeSection(RESULTS_FILE, "hosting-wake", body);
    return;
  }
  if (values.drains) {
    const body = await benchLogDrains(Number(values.drains));
    console.log(`\n${body}`);
    if (!values["no-write"]) writeSection(RESULTS_FILE, "hosting-drains", body);
    return;
  }
  if (values.metrics) {
    const body = await benchMetrics(Number(values.metrics));
    console.log(`\n${body}`);
    if (!values["no-write"]) writeSection(RESULTS_FILE, "hosting-metrics", body);
    return;
  }
  if (values.cron) {
    const body = await benchCron(Number(values.cron));
    console.log(`\n${body}`);
    if (!values["no-write"]) writeSection(RESULTS_FILE, "hosting-cron", body);
    return;
  }
  if (values.processes) {
    const body = await benchWebAndWorker(Number(values.processes));
    console.log(`\n${body}`);
    if (!values["no-write"]) writeSection(RESULTS_FILE, "hosting-processes", body);
    return;
  }
  const deploys = Number(values.deploys ?? 10);
  if (values.languages) {
    const body = await benchLanguages(values.languages.split(","), Number(values.rounds ?? 3));
    console.log(`\n${body}`);
    if (!values["no-write"]) writeSection(RESULTS_FILE, "hosting-languages", body);
    return;
  }
  if (values.runtime) {
    const body = await benchRuntimes(values.runtime.split(","), deploys);
    console.log(`\n${body}`);
    if (!values["no-write"]) writeSection(RESULTS_FILE, "hosting-runtimes", body);
    return;
  }
  const github = new GitHubDouble();
  const webhookSecret = `bench-${process.pid}`;
  const server = await startSlipway({ DEFAULT_REQUESTS_PER_MINUTE: "100000000", DEFAULT_MAX_APPS: "100", GITHUB_URL: github.fileUrl, GITHUB_WEBHOOK_SECRET: webhookSecret });
  const sections: string[] = [];
  try {
    const client = new HostingClient(server.url, await signUp(server.url, `bench-hosting-${process.pid}`));
    console.log(`# deploy: ${deploys} zip deploys of a Node app with no dependencies`);
    sections.push((await benchDeploys(client, deploys)).text);
    console.log(`# push: ${deploys} signed GitHub pushes of a Node app with no dependencies`);
    sections.push(await benchPushDeploys(client, github, webhookSecret, deploys));
    console.log(`# redeploy under load: ${deploys} redeploys, 10 connections through the router`);
    sections.push((await benchRedeployUnderLoad(client, deploys)).text);
    console.log("# logs: 10,000 lines/s for 10 s");
    sections.push(await benchLogs(client));
  } finally {
    await server.close();
  }
  console.log("# sandbox: spawn to first answer, plain vs sandboxed");
  const spawn = await spawnToAnswer(10);
  sections.push(
    [
      "### Sandbox cost: spawn to first HTTP answer of the same app (median of 10)",
      "",
      "| | ms |",
      "|---|---:|",
      `| plain \`node server.js\` | ${spawn.plainMs.toFixed(0)} |`,
      `| sandboxed (bubblewrap + setpriv + cgroups, in the app's existing network namespace) | ${spawn.sandboxedMs.toFixed(0)} |`,
      `| sandboxed, an app's first start (creates its namespace, veth and cgroups) | ${spawn.firstSandboxedMs.toFixed(0)} |`,
      "",
      `The sandbox adds **${(spawn.sandboxedMs - spawn.plainMs).toFixed(0)} ms** (${(spawn.sandboxedMs / spawn.plainMs).toFixed(2)}× plain) to every start after an app's first.`,
      "",
    ].join("\n"),
  );
  const body = [
    "## Hosting engine: deploys, redeploys under load, logs, sandbox cost",
    "",
    `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:hosting\``,
    "- The real server in the bench process (fresh SQLite, silent logs) with the sandboxed local runtime; apps reached through the platform's own port by `Host: <slug>.localhost`.",
    "",
    ...sections,
  ].join("\n");
  console.log(`\n${body}`);
  if (!values["no-write"]) writeSection(RESULTS_FILE, "hosting", body);
}

async function benchOneOffRuns(rounds: number): Promise<string> {
  const server = await startSlipway({ DEFAULT_REQUESTS_PER_MINUTE: "100000000" });
  try {
    const client = new HostingClient(server.url, await signUp(server.url, `bench-runs-${process.pid}`));
    console.log(`# one-off runs: ${rounds} rounds of \`echo ok\` through Slipway and spawned directly`);
    const section = await benchRuns(client, rounds);
    return [
      "## One-off runs against the same sandboxed command spawned directly",
      "",
      `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:hosting -- --runs ${rounds}\``,
      "- The real server in the bench process (fresh SQLite, silent logs), sandboxed local runtime.",
      "",
      section,
    ].join("\n");
  } finally {
    await server.close();
  }
}

async function benchLogDrains(rounds: number): Promise<string> {
  const server = await startSlipway({ DEFAULT_REQUESTS_PER_MINUTE: "100000000", OUTBOUND_ALLOWED_HOSTS: "127.0.0.1" });
  try {
    const client = new HostingClient(server.url, await signUp(server.url, `bench-drains-${process.pid}`));
    console.log(`# log drains: ${rounds} rounds of 10,000 lines/s for 10 s, no drain, a syslog drain, a drain that is down`);
    const section = await benchDrains(client, rounds);
    return [
      "## Log drains: 10,000 lines/s into a syslog receiver",
      "",
      `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:hosting -- --drains ${rounds}\``,
      "- The real server in the bench process (fresh SQLite, silent logs), sandboxed local runtime; `OUTBOUND_ALLOWED_HOSTS=127.0.0.1` for the local receiver.",
      `- Machine: ${os.cpus().length} CPUs, ${os.cpus()[0]?.model ?? "?"}, Node ${process.version}; load average ${os.loadavg()[0].toFixed(1)} at the start (the machine is shared: compare ratios).`,
      "",
      section,
    ].join("\n");
  } finally {
    await server.close();
  }
}

async function benchWebAndWorker(rounds: number): Promise<string> {
  const server = await startSlipway({ DEFAULT_REQUESTS_PER_MINUTE: "100000000", DEFAULT_MAX_APPS: "100" });
  try {
    const client = new HostingClient(server.url, await signUp(server.url, `bench-processes-${process.pid}`));
    console.log(`# web and worker: ${rounds} rounds of a web deploy and a web + worker deploy`);
    const section = await benchProcesses(client, rounds);
    return [
      "## Process types: a web-and-worker deploy against web alone",
      "",
      `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:hosting -- --processes ${rounds}\``,
      "- The real server in the bench process (fresh SQLite, silent logs), sandboxed local runtime.",
      "",
      section,
    ].join("\n");
  } finally {
    await server.close();
  }
}

async function benchLanguages(names: string[], rounds: number): Promise<string> {
  const unknown = names.filter((name) => !LANGUAGES[name]);
  if (unknown.length) throw new Error(`unknown language ${unknown.join(", ")}: expected ${Object.keys(LANGUAGES).join(", ")}`);
  const sections: string[] = [];
  for (const runtime of ["local", "docker"] as const) {
    const here = names.filter((name) => (LANGUAGES[name].runtime ?? "local") === runtime);
    if (!here.length) continue;
    if (runtime === "docker") await prepareDockerFrom();
    const server = await startSlipway({ RUNTIME: runtime, DEFAULT_REQUESTS_PER_MINUTE: "100000000", DEFAULT_MAX_APPS: "100", ...languageBuildSettings() });
    try {
      const client = new HostingClient(server.url, await signUp(server.url, `bench-languages-${runtime}-${process.pid}`));
      for (const name of here) {
        console.log(`# ${LANGUAGES[name].name} on RUNTIME=${runtime}: ${rounds} rounds of by hand, first deploy, redeploy`);
        sections.push(await benchLanguage(client, LANGUAGES[name], rounds));
      }
    } finally {
      await server.close();
    }
  }
  return [
    "## Builds in any language: deploys against the same commands by hand",
    "",
    `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:hosting -- --languages ${names.join(",")} --rounds ${rounds}\``,
    "- The real server in the bench process: Python and Go on the sandboxed local runtime, with packages from the machine's own pip index (BUILD_ENV, BUILD_READONLY_PATHS); the Dockerfile on RUNTIME=docker.",
    "- By hand: the same files in a fresh folder with fresh caches, unsandboxed, the commands a developer would type; timed to the first answer. For the Dockerfile, `docker build` and `docker run` through the same engine, with no layer of either side in the cache (the text is in an early RUN).",
    "",
    ...sections,
  ].join("\n");
}

main().catch((error: unknown) => {
  console.error(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
