// The markdown table printed after a suite and the RESULTS.md section it replaces.
import fs from "node:fs";
import os from "node:os";
import type { LoadOptions, PreparedSuite, Row, Suite } from "./types.ts";

const HEADER = `# Slipway benchmarks

Written by \`npm run bench\` (bench/run.ts). Each section is replaced when its suite runs
(\`npm run bench -- <suite>\`); the others are kept. Each suite runs in a fresh process (several named run one after
another), so that no suite's traffic shapes the JIT state of the next one's code. Compare ratios, not absolute requests/s.
`;

export interface RunInfo extends LoadOptions {
  rounds: number;
  date: Date;
  /** The command line that produced the numbers. */
  command: string;
}

export function table(rows: Row[], suite: Suite): string {
  const lines = [
    "| scenario | req/s | p50 ms | p99 ms | server µs/req | × baseline | target |",
    "|---|---:|---:|---:|---:|---:|---|",
  ];
  for (const row of rows) {
    const target = suite.targets.find((t) => t.scenario === row.scenario.name);
    const verdict = target ? `≥ ${target.min}× ${row.ratio >= target.min ? "✅" : "❌"}` : "";
    lines.push(
      `| ${row.scenario.label} | ${Math.round(row.requestsPerSecond).toLocaleString("en-US")} | ${row.p50Ms} | ${row.p99Ms} | ${Math.round(row.serverMicrosPerRequest)} | ${row.ratio.toFixed(2)} | ${verdict} |`,
    );
  }
  return lines.join("\n");
}

export function machine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  return `${os.availableParallelism()} CPUs (\`nproc\`), ${cpu}, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/** Whether this process runs the tsc output (npm run bench) rather than the sources through tsx. */
const compiled = () => import.meta.url.endsWith(".js");

export function section(suite: Suite, prepared: PreparedSuite, rows: Row[], info: RunInfo): string {
  const scenarios = rows.map((r) => `\`${r.scenario.name}\``).join(", ");
  return [
    `## ${suite.title}`,
    "",
    `- Run: ${info.date.toISOString().slice(0, 16).replace("T", " ")} UTC, \`${info.command}\``,
    `- Machine: ${machine()}`,
    `- Code: ${compiled() ? "compiled by tsc (\`dist-bench/\`), as \`npm start\` runs \`dist/\`" : "run from its TypeScript sources through tsx (esbuild with \`keepNames\`: every function created per request also gets its name set, which the compiled build does not do)"}`,
    `- Load: autocannon, ${info.connections} connections, ${info.durationSeconds} s per scenario after a ${info.warmupSeconds} s warm-up, ` +
      (suite.pairedBaseline
        ? `scenarios ${scenarios} one after another, the baseline measured again right before each scenario (each ratio against the baseline run just before it)`
        : `scenarios ${scenarios} one after another`) +
      (info.rounds > 1 ? `, ${info.rounds} rounds (medians${suite.pairedBaseline ? "" : "; each ratio against the baseline of its own round"})` : "") +
      ". autocannon runs in a worker thread; the servers run on the main thread of the same process, except those the notes below place in a child process." +
      ("gc" in globalThis ? " A full garbage collection runs before each measured run, so no scenario pays for another's garbage." : ""),
    ...prepared.setupNotes.map((note) => `- ${note}`),
    "",
    table(rows, suite),
    "",
    suite.explain(rows),
    "",
  ].join("\n");
}

/** Replaces (or appends) the suite's section of the results file, keeping every other section. */
export function writeSection(file: string, suiteName: string, body: string): void {
  const start = `<!-- suite:${suiteName} -->`;
  const end = `<!-- /suite:${suiteName} -->`;
  const block = `${start}\n${body}${end}`;
  const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : HEADER;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from ? current.slice(0, from) + block + current.slice(to + end.length) : `${current.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(file, next);
}
