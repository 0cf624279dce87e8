// `npm run bench`: runs the selected suites (bench/suites) and writes bench/RESULTS.md. See lib/cli.ts.
import { spawn } from "node:child_process";
import path from "node:path";
import { parsePlan, USAGE, type Plan } from "./lib/cli.ts";
import { measure } from "./lib/load.ts";
import { BENCH_DIR } from "./lib/paths.ts";
import { section, table, writeSection } from "./lib/report.ts";
import type { LoadOptions, Measurement, Row, Scenario, Suite } from "./lib/types.ts";
import { suites } from "./suites/index.ts";

const RESULTS_FILE = path.join(BENCH_DIR, "RESULTS.md");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function measureLogged(scenario: Scenario, load: LoadOptions, round: string): Promise<Measurement> {
  process.stdout.write(`  ${round}${scenario.name} … `);
  const m = await measure(scenario.target, load);
  console.log(`${Math.round(m.requestsPerSecond)} req/s, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms, server ${Math.round(m.serverMicrosPerRequest)} µs/req`);
  return m;
}

async function runSuite(suite: Suite, only: Set<string> | "all", load: LoadOptions, rounds: number, write: boolean, command: string) {
  console.log(`\n# ${suite.name}: ${suite.title}`);
  const prepared = await suite.setup();
  try {
    const scenarios = prepared.scenarios.filter((s) => only === "all" || only.has(s.name));
    const unknown = only === "all" ? [] : [...only].filter((name) => !prepared.scenarios.some((s) => s.name === name));
    if (unknown.length) throw new Error(`Unknown scenario(s) ${unknown.join(", ")} in ${suite.name}: ${prepared.scenarios.map((s) => s.name).join(", ")}`);

    const ordered = [prepared.baseline, ...scenarios];
    const samples = new Map<Scenario, { m: Measurement; ratio: number }[]>(ordered.map((s) => [s, []]));
    for (let round = 1; round <= rounds; round += 1) {
      const label = rounds > 1 ? `[${round}/${rounds}] ` : "";
      let baseline = await measureLogged(prepared.baseline, load, label);
      samples.get(prepared.baseline)!.push({ m: baseline, ratio: 1 });
      for (const [i, scenario] of scenarios.entries()) {
        if (suite.pairedBaseline && i > 0) {
          baseline = await measureLogged(prepared.baseline, load, label);
          samples.get(prepared.baseline)!.push({ m: baseline, ratio: 1 });
        }
        const m = await measureLogged(scenario, load, label);
        samples.get(scenario)!.push({ m, ratio: m.requestsPerSecond / baseline.requestsPerSecond });
      }
    }

    const rows: Row[] = ordered.map((scenario) => {
      const list = samples.get(scenario)!;
      return {
        scenario,
        requestsPerSecond: median(list.map((s) => s.m.requestsPerSecond)),
        p50Ms: median(list.map((s) => s.m.p50Ms)),
        p99Ms: median(list.map((s) => s.m.p99Ms)),
        totalRequests: list.reduce((sum, s) => sum + s.m.totalRequests, 0),
        serverMicrosPerRequest: median(list.map((s) => s.m.serverMicrosPerRequest)),
        ratio: median(list.map((s) => s.ratio)),
      };
    });
    console.log(`\n${table(rows, suite)}\n\n${suite.explain(rows)}`);
    if (write) {
      writeSection(RESULTS_FILE, suite.name, section(suite, prepared, rows, { ...load, rounds, date: new Date(), command }));
      console.log(`\nUpdated ${path.relative(process.cwd(), RESULTS_FILE)} (section "${suite.name}").`);
    }
  } finally {
    await prepared.close();
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const plan = parsePlan(argv, suites);
  if (plan === "help") {
    console.log(`${USAGE}\n\nSuites:\n${suites.map((s) => `  ${s.name}${s.optIn ? " (opt-in)" : ""}: ${s.title}`).join("\n")}`);
    return;
  }
  if (plan.selections.length > 1) {
    // Each suite in a fresh process: what one suite's servers ran must not shape the JIT state of the next's.
    for (const { suite, scenarios } of plan.selections) {
      const selectors = scenarios === "all" ? [suite.name] : [...scenarios].map((scenario) => `${suite.name}:${scenario}`);
      const code = await runThisScript([...selectors, ...optionArgs(plan)]);
      if (code !== 0) throw new Error(`suite ${suite.name} failed (exit ${code})`);
    }
    return;
  }
  const command = ["npm run bench", ...(argv.length ? ["--", ...argv] : [])].join(" ");
  for (const { suite, scenarios } of plan.selections) await runSuite(suite, scenarios, plan.load, plan.rounds, plan.write, command);
}

function optionArgs(plan: Plan): string[] {
  const { durationSeconds, connections, warmupSeconds } = plan.load;
  const args = ["--duration", durationSeconds, "--connections", connections, "--warmup", warmupSeconds, "--rounds", plan.rounds].map(String);
  return plan.write ? args : [...args, "--no-write"];
}

function runThisScript(args: string[]): Promise<number | null> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...args], { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", resolve);
  });
}

main().catch((error: unknown) => {
  console.error(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
