// quota:request (ask an administrator for higher limits) and quota:requests (yours and their decisions).
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { QuotaRequestsQuery, RequestQuotaMutation } from "../documents.ts";
import type { CliQuotaRequestFragment } from "../gql/graphql.ts";
import { CliError, color, formatBytes, print, printJson, printTable } from "../output.ts";

type Options = GlobalOptions & {
  json?: boolean;
  apps?: string;
  databases?: string;
  instances?: string;
  requestsPerMinute?: string;
  cdnBytes?: string;
  uploadBytes?: string;
  reason?: string;
};

const UNITS: Record<string, number> = { "": 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** "2GiB", "2G", "2GB", "500 MiB", "1.5g" or a number of bytes; units are binary (1 GB = 1024³ bytes, as `slipway quota` shows them). */
export function parseSize(value: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(value);
  if (!match) throw new CliError(`${flag} "${value}" is not a size: give bytes or a number with KiB, MiB, GiB or TiB (e.g. 2GiB).`);
  const bytes = Math.round(Number(match[1]) * UNITS[match[2].toLowerCase()]);
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new CliError(`${flag} "${value}" is not a size of at least one byte.`);
  return bytes;
}

function parseCount(value: string, flag: string): number {
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value)) || Number(value) < 1) throw new CliError(`${flag} "${value}" is not a whole number of at least 1.`);
  return Number(value);
}

function describeLimits(limits: CliQuotaRequestFragment["limits"]): string {
  const parts = [
    limits.maxApps != null && `${limits.maxApps} apps`,
    limits.maxDatabases != null && `${limits.maxDatabases} databases`,
    limits.maxInstances != null && `${limits.maxInstances} instances per app`,
    limits.requestsPerMinute != null && `${limits.requestsPerMinute} requests/minute`,
    limits.cdnBytes != null && `${formatBytes(limits.cdnBytes)} CDN storage`,
    limits.maxUploadBytes != null && `${formatBytes(limits.maxUploadBytes)} uploads`,
  ];
  return parts.filter(Boolean).join(", ");
}

async function askReason(): Promise<string> {
  if (!process.stdin.isTTY) throw new CliError("Give --reason: an administrator reads why you need higher limits.");
  const { text, isCancel } = await import("@clack/prompts");
  const reason = await text({ message: "Why do you need higher limits? (an administrator reads this)", validate: (v) => (v?.trim() ? undefined : "Say why.") });
  if (isCancel(reason)) throw new CliError("Not requested.");
  return reason;
}

export async function request(options: Options) {
  const limits = {
    ...(options.apps != null ? { maxApps: parseCount(options.apps, "--apps") } : {}),
    ...(options.databases != null ? { maxDatabases: parseCount(options.databases, "--databases") } : {}),
    ...(options.instances != null ? { maxInstances: parseCount(options.instances, "--instances") } : {}),
    ...(options.requestsPerMinute != null ? { requestsPerMinute: parseCount(options.requestsPerMinute, "--requests-per-minute") } : {}),
    ...(options.cdnBytes != null ? { cdnBytes: parseSize(options.cdnBytes, "--cdn-bytes") } : {}),
    ...(options.uploadBytes != null ? { maxUploadBytes: parseSize(options.uploadBytes, "--upload-bytes") } : {}),
  };
  if (!Object.keys(limits).length) throw new CliError("Say which limits you want: --apps, --databases, --instances, --requests-per-minute, --cdn-bytes or --upload-bytes.");
  const api = Api.connect(options);
  const reason = options.reason?.trim() ? options.reason : await askReason();
  const made = unwrap((await api.graphql(RequestQuotaMutation, { input: { limits, reason } })).requestQuota);
  if (!("id" in made)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(made);
  print(`Requested ${describeLimits(made.limits)} (request ${made.id}, ${made.status}).`);
  print(color.dim("An administrator decides it; `slipway quota:requests` shows the decision."));
}

export async function requests(options: Options) {
  const api = Api.connect(options);
  const { quotaRequests } = await api.graphql(QuotaRequestsQuery, {});
  if (options.json) return printJson(quotaRequests);
  if (!quotaRequests.length) return print("You have not asked for higher limits. Ask with `slipway quota:request`.");
  printTable(
    ["REQUEST", "STATUS", "LIMITS", "CREATED", "REASON"],
    quotaRequests.map((r) => [r.id, r.status, describeLimits(r.limits), r.createdAt, r.status === "DENIED" && r.decisionReason ? `denied: ${r.decisionReason}` : r.reason]),
  );
}
