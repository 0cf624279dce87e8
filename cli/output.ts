// What the CLI prints: colours only on a terminal and never with NO_COLOR, tables for people, JSON for scripts,
// and errors (CliError) as one line on stderr with a non-zero exit.
import { env } from "./env.ts";

/** An error to show the user as it is (no stack), with the exit code to end with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    /** The server's error code, when the error is the server's answer. */
    readonly code?: string,
  ) {
    super(message);
  }
}

export function colorEnabled(stream: NodeJS.WriteStream = process.stdout): boolean {
  if (env.noColor()) return false;
  if (env.forceColor()) return true;
  return Boolean(stream.isTTY);
}

const paint = (open: number, close: number) => (text: string, stream?: NodeJS.WriteStream) =>
  colorEnabled(stream) ? `\x1b[${open}m${text}\x1b[${close}m` : text;

export const color = {
  bold: paint(1, 22),
  dim: paint(2, 22),
  red: paint(31, 39),
  green: paint(32, 39),
  yellow: paint(33, 39),
  cyan: paint(36, 39),
};

export function print(line = ""): void {
  process.stdout.write(`${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Columns padded to the widest cell; the header dimmed. */
export function printTable(header: string[], rows: (string | number | null | undefined)[][]): void {
  const cells = rows.map((row) => row.map((c) => (c == null ? "" : String(c))));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd();
  print(color.dim(line(header)));
  for (const row of cells) print(line(row));
}

const STATUS_COLORS: Record<string, (t: string) => string> = {
  RUNNING: color.green,
  LIVE: color.green,
  FAILED: color.red,
  CRASHED: color.red,
  DEPLOYING: color.yellow,
  BUILDING: color.yellow,
  STARTING: color.yellow,
  QUEUED: color.yellow,
};

export function status(value: string): string {
  return (STATUS_COLORS[value] ?? ((t: string) => t))(value);
}

export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}
