// The range a metrics query asks for, checked: `from` and `to` are ISO 8601 times (default: the last hour up to now),
// `step` seconds or a duration such as 5m or 1h, a whole number of minutes (default: the smallest of STEPS that gives
// at most 500 points). Refused with the limit named: a range that starts before what METRICS_RETENTION_DAYS keeps, or
// one of more than MAX_POINTS points.
import { InvalidRequestError } from "../errors.ts";

export const MAX_POINTS = 1000;
const MINUTE = 60_000;
const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 360, 720, 1440].map((m) => m * MINUTE);
const UNITS: Record<string, number> = { s: 1000, m: MINUTE, h: 60 * MINUTE, d: 1440 * MINUTE };

export interface MetricsRangeInput {
  from?: string | null;
  to?: string | null;
  step?: string | null;
}

export interface MetricsRange {
  /** Inclusive, on a minute. */
  from: number;
  /** Exclusive, on a minute. */
  to: number;
  stepMs: number;
  points: number;
}

export function parseMetricsRange(input: MetricsRangeInput, now: number, retentionDays: number): MetricsRange {
  const to = ceilMinute(input.to ? parseTime(input.to, "to") : now);
  const from = Math.floor((input.from ? parseTime(input.from, "from") : to - 60 * MINUTE) / MINUTE) * MINUTE;
  if (from >= to) throw new InvalidRequestError("from must be before to.", { from: "Must be before to." });
  const kept = now - retentionDays * 1440 * MINUTE;
  if (from < kept - MINUTE) {
    const message = `Metrics are kept for ${retentionDays} days (METRICS_RETENTION_DAYS): from must be ${new Date(kept).toISOString()} or later.`;
    throw new InvalidRequestError(message, { from: message });
  }
  const stepMs = input.step ? parseStep(input.step) : (STEPS.find((s) => (to - from) / s <= 500) ?? STEPS.at(-1)!);
  const points = Math.ceil((to - from) / stepMs);
  if (points > MAX_POINTS) {
    const message = `At most ${MAX_POINTS} points: this range at this step is ${points}. Raise step or shorten the range.`;
    throw new InvalidRequestError(message, { step: message });
  }
  return { from, to, stepMs, points };
}

function parseTime(text: string, field: "from" | "to"): number {
  const time = /^\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(time)) throw new InvalidRequestError(`${field} is not an ISO 8601 time.`, { [field]: "Expected an ISO 8601 time such as 2026-11-29T03:00:00Z." });
  return time;
}

function parseStep(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  const ms = match ? Number(match[1]) * UNITS[match[2] || "s"] : NaN;
  if (!(ms >= MINUTE) || ms % MINUTE !== 0) {
    throw new InvalidRequestError("step must be a whole number of minutes (metrics have one-minute resolution).", { step: "Expected seconds (a multiple of 60) or a duration such as 5m or 1h." });
  }
  return ms;
}

const ceilMinute = (time: number) => Math.ceil(time / MINUTE) * MINUTE;
