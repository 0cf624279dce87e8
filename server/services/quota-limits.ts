// The six limits of a quota: which values are sane, and how a partial set of them is checked. Shared by
// limit requests (users ask) and by administrators (who grant or set them directly).
import { InvalidRequestError, type FieldErrors } from "../errors.ts";

export interface QuotaLimits {
  requestsPerMinute?: number | null;
  maxApps?: number | null;
  maxDatabases?: number | null;
  /** The most instances one app may run (the highest App.instances of the account's apps counts as usage). */
  maxInstances?: number | null;
  cdnBytes?: bigint | null;
  maxUploadBytes?: bigint | null;
}

const GiB = 1024n ** 3n;

/** The highest value any account may get, per limit: far above real use, low enough to keep counters sane. */
export const LIMIT_MAXIMA = {
  requestsPerMinute: 100_000n,
  maxApps: 1_000n,
  maxDatabases: 1_000n,
  maxInstances: 100n,
  cdnBytes: 1024n * GiB,
  maxUploadBytes: 10n * GiB,
} as const;

export const LIMIT_NAMES = Object.keys(LIMIT_MAXIMA) as (keyof typeof LIMIT_MAXIMA)[];

/** The limits given (non-null), each a whole number from 1 to its maximum; throws one error naming every bad one. */
export function checkLimits(limits: QuotaLimits | null | undefined, field = "limits"): Partial<Record<keyof QuotaLimits, bigint>> {
  const given: Partial<Record<keyof QuotaLimits, bigint>> = {};
  const fields: FieldErrors = {};
  if (!limits || typeof limits !== "object") throw new InvalidRequestError(`Give the ${field} you want.`, { [field]: "Required." });
  for (const name of LIMIT_NAMES) {
    const value = limits[name];
    if (value === null || value === undefined) continue;
    const n = typeof value === "bigint" ? value : Number.isSafeInteger(value) ? BigInt(value) : null;
    const max = LIMIT_MAXIMA[name];
    if (n === null || n < 1n || n > max) fields[`${field}.${name}`] = `Use a whole number from 1 to ${max}.`;
    else given[name] = n;
  }
  const bad = Object.keys(fields);
  if (bad.length) throw new InvalidRequestError(`Check ${bad.join(", ")}: ${Object.values(fields)[0]}`, fields);
  if (!Object.keys(given).length) throw new InvalidRequestError(`Give at least one limit in ${field}.`, { [field]: "Give at least one limit." });
  return given;
}

/** Checked limits as the Quota row's columns (ints and bigints). */
export function quotaData(limits: Partial<Record<keyof QuotaLimits, bigint>>) {
  const data: { requestsPerMinute?: number; maxApps?: number; maxDatabases?: number; maxInstances?: number; cdnBytes?: bigint; maxUploadBytes?: bigint } = {};
  if (limits.requestsPerMinute !== undefined) data.requestsPerMinute = Number(limits.requestsPerMinute);
  if (limits.maxApps !== undefined) data.maxApps = Number(limits.maxApps);
  if (limits.maxDatabases !== undefined) data.maxDatabases = Number(limits.maxDatabases);
  if (limits.maxInstances !== undefined) data.maxInstances = Number(limits.maxInstances);
  if (limits.cdnBytes !== undefined) data.cdnBytes = limits.cdnBytes;
  if (limits.maxUploadBytes !== undefined) data.maxUploadBytes = limits.maxUploadBytes;
  return data;
}

/** For the audit log: bigints as numbers (JSON). */
export function limitsForLog(data: ReturnType<typeof quotaData>): Record<string, number> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Number(v)]));
}

/** Whether an administrator raised any of the account's limits above the platform's defaults (a granted request). */
export function quotaRaised(quota: Record<(typeof LIMIT_NAMES)[number], number | bigint>, defaults: Record<(typeof LIMIT_NAMES)[number], number | bigint>): boolean {
  return LIMIT_NAMES.some((name) => BigInt(quota[name]) > BigInt(defaults[name]));
}
