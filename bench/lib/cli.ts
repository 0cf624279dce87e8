// Command line: `npm run bench -- [suite | suite:scenario ...] [--duration s] [--connections n] [--warmup s] [--rounds n] [--no-write]`.
import { parseArgs } from "node:util";
import type { LoadOptions, Suite } from "./types.ts";

export interface Plan {
  selections: { suite: Suite; scenarios: Set<string> | "all" }[];
  load: LoadOptions;
  rounds: number;
  write: boolean;
}

export const USAGE = `Usage: npm run bench -- [suite | suite:scenario ...] [options]
  suite            run every scenario of a suite (default: every suite but the opt-in diagnostics)
  suite:scenario   run only that scenario (the baseline always runs: ratios need it)
  --duration <s>     seconds measured per scenario (default 10)
  --connections <n>  concurrent connections (default 10)
  --warmup <s>       warm-up seconds before each scenario (default 3)
  --rounds <n>       repeat the sequence, report medians (default 1)
  --no-write         print the table without updating bench/RESULTS.md`;

function positive(name: string, value: string | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) throw new Error(`--${name} expects a whole number${allowZero ? "" : " above 0"}, got ${value}`);
  return n;
}

export function parsePlan(argv: string[], suites: Suite[]): Plan | "help" {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      duration: { type: "string" },
      connections: { type: "string" },
      warmup: { type: "string" },
      rounds: { type: "string" },
      "no-write": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";

  const bySuite = new Map<Suite, Set<string> | "all">();
  for (const arg of positionals.length ? positionals : suites.filter((s) => !s.optIn).map((s) => s.name)) {
    const [suiteName, scenario] = arg.split(":");
    const suite = suites.find((s) => s.name === suiteName);
    if (!suite) throw new Error(`Unknown suite "${suiteName}". Suites: ${suites.map((s) => s.name).join(", ")}`);
    const current = bySuite.get(suite);
    if (!scenario || current === "all") bySuite.set(suite, "all");
    else bySuite.set(suite, new Set([...(current ?? []), scenario]));
  }

  return {
    selections: [...bySuite].map(([suite, scenarios]) => ({ suite, scenarios })),
    load: {
      durationSeconds: positive("duration", values.duration, 10),
      connections: positive("connections", values.connections, 10),
      warmupSeconds: positive("warmup", values.warmup, 3, true),
    },
    rounds: positive("rounds", values.rounds, 1),
    write: !values["no-write"],
  };
}
