// slipway metrics [--since 1h]: each of the app's metrics with its latest value and a sparkline of the range, at
// most SPARK_WIDTH points (the step is chosen for it).
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { AppMetricsQuery } from "../documents.ts";
import { resolveApp } from "../link.ts";
import { CliError, formatBytes, print, printJson, printTable } from "../output.ts";

type Options = GlobalOptions & { app?: string; since?: string; json?: boolean };
type Series = Array<[string, number | null]>;

const SPARK_WIDTH = 60;
const BARS = "▁▂▃▄▅▆▇█";
const UNITS: Record<string, number> = { m: 1, h: 60, d: 1440 };

export async function metrics(options: Options) {
  const minutes = parseSince(options.since ?? "1h");
  const step = Math.ceil(minutes / SPARK_WIDTH);
  const api = Api.connect(options);
  const from = new Date(Date.now() - minutes * 60_000).toISOString();
  const result = unwrap((await api.graphql(AppMetricsQuery, { slug: resolveApp(options.app), from, step: `${step}m` })).appMetrics);
  if (!("series" in result)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(result);
  const { series } = result;
  const limit = latest(series.memoryLimit);
  const rows: [string, Series, (v: number) => string][] = [
    ["CPU", series.cpu, (v) => `${v.toFixed(2)} cores`],
    ["Memory", series.memory, (v) => formatBytes(v) + (limit ? ` of ${formatBytes(limit)}` : "")],
    ["Requests", series.requests, (v) => `${v} / ${step} min`],
    ["Errors (5xx)", series.errors, (v) => `${v} / ${step} min`],
    ["Latency p50", series.latencyP50, (v) => `${v} ms`],
    ["Latency p95", series.latencyP95, (v) => `${v} ms`],
  ];
  print(`Last ${options.since ?? "1h"}, one point per ${step} min (UTC ${result.from.slice(11, 16)} to ${result.to.slice(11, 16)}):`);
  printTable(
    ["METRIC", "LATEST", "RANGE"],
    rows.map(([name, values, format]) => {
      const value = latest(values);
      return [name, value === null ? "-" : format(value), sparkline(values.map(([, v]) => v))];
    }),
  );
}

/** `30m`, `1h`, `7d` → minutes. */
function parseSince(text: string): number {
  const match = /^(\d+)([mhd])$/.exec(text);
  const minutes = match ? Number(match[1]) * UNITS[match[2]] : 0;
  if (minutes < 1) throw new CliError(`--since takes a duration such as 30m, 1h or 7d, not "${text}".`);
  return minutes;
}

function latest(series: Series): number | null {
  for (let i = series.length - 1; i >= 0; i--) if (series[i][1] !== null) return series[i][1];
  return null;
}

/** One bar per point, scaled from 0 to the range's highest value; a blank where nothing was measured. */
export function sparkline(values: (number | null)[]): string {
  const top = Math.max(0, ...values.map((v) => v ?? 0));
  return values.map((v) => (v === null ? " " : BARS[top === 0 ? 0 : Math.min(BARS.length - 1, Math.floor((v / top) * (BARS.length - 1) + 0.5))])).join("");
}
