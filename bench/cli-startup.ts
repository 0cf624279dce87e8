// `npm run bench:cli`: how long `slipway --help` takes from spawn to its first byte of output, as medians of N
// rounds (default 21): the compiled CLI (dist/cli, what `npm run build:server` makes and bin/slipway.js prefers),
// the TypeScript sources through tsx (a checkout never built), and `node -e` printing one line (Node's own
// start-up, the floor). Writes the `cli-startup` section of bench/RESULTS.md. Target: under 150 ms compiled.
import { execFileSync, spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { machine, writeSection } from "./lib/report.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS_FILE = path.join(ROOT, "bench", "RESULTS.md");
const TARGET_MS = 150;

function firstOutputMs(args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "inherit"] });
    let elapsed: number | null = null;
    child.stdout.once("data", () => (elapsed = performance.now() - started));
    child.stdout.resume();
    child.on("error", reject);
    child.on("close", (code) => (code === 0 && elapsed !== null ? resolve(elapsed) : reject(new Error(`${args.join(" ")} exited ${code}`))));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const rounds = Number(process.argv[2] ?? 21);
  execFileSync("npm", ["run", "build:server"], { cwd: ROOT, stdio: "ignore" });
  const bin = path.join(ROOT, "bin", "slipway.js");
  const scenarios: { label: string; run: () => Promise<number> }[] = [
    { label: "`node -e` printing one line (Node's start-up, the floor)", run: () => firstOutputMs(["-e", "console.log('x')"]) },
    { label: "`slipway --help`, compiled (`dist/cli`, after `npm run build:server`)", run: () => firstOutputMs([bin, "--help"]) },
    { label: "`slipway --help`, TypeScript sources through tsx (a checkout never built)", run: () => firstOutputMs([path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), path.join(ROOT, "cli", "main.ts"), "--help"]) },
  ];
  const samples = scenarios.map(() => [] as number[]);
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, scenario] of scenarios.entries()) samples[i].push(await scenario.run());
  }
  const rows = scenarios.map((s, i) => ({ label: s.label, median: median(samples[i]), min: Math.min(...samples[i]), max: Math.max(...samples[i]) }));
  const compiled = rows[1].median;
  const lines = [
    "## CLI start-up: `slipway --help` to its first output",
    "",
    `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:cli${process.argv[2] ? ` -- ${rounds}` : ""}\``,
    `- Machine: ${machine()}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(", ")} when the run ended (other work on the machine slows every row alike: compare each row with Node's own start-up)`,
    `- Each scenario spawned ${rounds} times in turn (interleaved); time from \`spawn\` to the first byte on stdout. \`bin/slipway.js\` runs the compiled build when it is not older than the sources, as here; only commander and the command tree load before the help is printed, every command's code being imported when it runs.`,
    "",
    "| scenario | median ms | min ms | max ms | target |",
    "|---|---:|---:|---:|---|",
    ...rows.map((r, i) => `| ${r.label} | ${r.median.toFixed(0)} | ${r.min.toFixed(0)} | ${r.max.toFixed(0)} | ${i === 1 ? `< ${TARGET_MS} ms ${compiled < TARGET_MS ? "✅" : "❌"}` : ""} |`),
    "",
    `The compiled CLI printed its help **${compiled.toFixed(0)} ms** after spawn, ${(compiled - rows[0].median).toFixed(0)} ms above Node's own start-up: the target (< ${TARGET_MS} ms) is **${compiled < TARGET_MS ? "met" : "missed"}**. Through tsx (no build) it takes ${rows[2].median.toFixed(0)} ms, which is why bin/slipway.js prefers the build.`,
    "",
  ];
  console.log(lines.join("\n"));
  writeSection(RESULTS_FILE, "cli-startup", lines.join("\n"));
}

await main();
