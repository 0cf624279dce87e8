// The one module that reads process.env. Every variable of the contract's configuration table is
// validated here at boot; a bad value stops the server with one line naming the variable.
import { isIP } from "node:net";
import path from "node:path";
import { getDomain } from "tldts";
import { z } from "zod";
import { parseAllowList, type OutboundAllowList } from "./platform/outbound.ts";

const MiB = 1024 * 1024;

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"], { error: "expected true or false" })
  .transform((v) => v === "true" || v === "1" || v === "yes");
const positiveInt = z.coerce.number({ error: "expected a whole number" }).int("expected a whole number").positive("expected a number above 0");
const url = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, `expected a URL starting with ${protocols.map((p) => `${p}//`).join(" or ")}`);

/** A comma-separated list of browser origins (scheme://host[:port]); never a wildcard. */
const origins = z
  .string()
  .transform((v) => v.split(",").map((s) => s.trim().replace(/\/+$/, "")).filter(Boolean))
  .refine((list) => !list.includes("*"), "a wildcard (*) is not allowed: list each origin, like https://app.example.com")
  .refine((list) => list.every(isOrigin), "expected comma-separated origins like https://app.example.com (scheme, host and port only)");

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return ["http:", "https:"].includes(url.protocol) && url.origin === value.toLowerCase();
  } catch {
    return false;
  }
}

/** Caddy's admin endpoint: a unix socket (an absolute path, or Caddy's unix/ form) or a loopback host:port. */
function isLocalAdmin(value: string): boolean {
  if (value.startsWith("/") || value.startsWith("unix/")) return value.replace(/^unix\//, "").startsWith("/");
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  if (!match || Number(match[3]) < 1 || Number(match[3]) > 65535) return false;
  const host = (match[1] ?? match[2]).toLowerCase();
  return host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));
}

/** Where Slipway reaches Caddy's admin API. */
export type CaddyAdmin = { socketPath: string } | { host: string; port: number };

function caddyAdmin(value: string): CaddyAdmin {
  if (value.startsWith("/") || value.startsWith("unix/")) return { socketPath: value.replace(/^unix\//, "") };
  const colon = value.lastIndexOf(":");
  return { host: value.slice(0, colon).replace(/^\[|\]$/g, ""), port: Number(value.slice(colon + 1)) };
}

/** OUTBOUND_ALLOWED_HOSTS: the private hosts, addresses and ranges webhooks and log drains may reach. */
const outboundAllowList = z.string().transform((v, ctx) => {
  const parsed = parseAllowList(v);
  if ("invalid" in parsed) {
    ctx.addIssue({ code: "custom", message: `"${parsed.invalid}" is not a host name, an address or a CIDR range (like 10.0.0.0/8)` });
    return z.NEVER;
  }
  return parsed;
});

/** BUILD_ENV: a JSON object of variables every build sees (package mirrors, proxies). */
const buildEnv = z.string().transform((v, ctx) => {
  const problem = 'expected a JSON object of string values, like {"PIP_INDEX_URL":"http://mirror/simple"}';
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    ctx.addIssue({ code: "custom", message: problem });
    return z.NEVER;
  }
  const valid =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) &&
    Object.entries(parsed).every(([name, value]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && typeof value === "string" && !value.includes("\0"));
  if (!valid) {
    ctx.addIssue({ code: "custom", message: problem });
    return z.NEVER;
  }
  return parsed as Record<string, string>;
});

/** Where a build sees itself and its own folders: never bound over by an operator's read-only path. */
const SANDBOX_PATHS = ["/app", "/data", "/cache", "/tmp", "/proc", "/dev", "/usr", "/etc", "/bin", "/lib", "/lib64", "/sbin"];

function isPlainAbsolute(p: string): boolean {
  const trimmed = p.replace(/\/+$/, "");
  return path.isAbsolute(p) && trimmed !== "" && path.normalize(trimmed) === trimmed;
}

/** BUILD_READONLY_PATHS: host directories bound read-only, at the same path, into every build. */
const readOnlyPaths = z
  .string()
  .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
  .refine((list) => list.every((p) => isPlainAbsolute(p)), "expected absolute directories separated by commas, like /srv/pypi,/etc/ssl/corp-ca")
  .refine(
    (list) => list.every((p) => !SANDBOX_PATHS.some((own) => p === own || p.startsWith(`${own}/`))),
    `expected directories outside the sandbox's own (${SANDBOX_PATHS.join(", ")})`,
  )
  .transform((list) => list.map((p) => p.replace(/\/+$/, "")));

const schema = z.object({
  NODE_ENV: z.string().default("development"),
  PORT: z.coerce.number({ error: "expected a port number" }).int().min(0).max(65535, "expected a port number").default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_URL: url(["http:", "https:"]).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  SHARED_DATA_DIR: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .refine((v) => /^(file:|postgres(ql)?:\/\/)/.test(v), "expected file:<path> (SQLite) or postgresql://… (PostgreSQL)")
    .optional(),
  REDIS_URL: url(["redis:", "rediss:"]).optional(),
  REDIS_KEY_PREFIX: z.string().regex(/^[\w:.-]*$/, "expected letters, digits, ':', '.', '_' or '-'").default("slipway:"),
  ADMIN_EMAILS: z.string().default(""),
  CORS_ORIGINS: origins.default([]),
  SMTP_URL: url(["smtp:", "smtps:"]).optional(),
  MAIL_FROM: z.string().regex(/^[^\r\n]*@[^\r\n]*$/, 'expected an address like "Slipway <no-reply@example.com>"').optional(),
  REQUIRE_APPROVAL: bool.default(false),
  APPS_DOMAIN: z.string().regex(/^[a-z0-9.-]+$/i, "expected a domain name like apps.example.com").default("localhost"),
  GITHUB_URL: z.string().min(1).default("https://github.com"),
  GITHUB_WEBHOOK_SECRET: z.string().min(1).optional(),
  METRICS_TOKEN: z.string().min(16, "expected at least 16 characters").optional(),
  OUTBOUND_ALLOWED_HOSTS: outboundAllowList.default({ hosts: [], ranges: [] }),
  DRAIN_CA_FILE: z.string().min(1).optional(),
  GITHUB_TOKEN: z.string().regex(/^[\x21-\x7e]+$/, "expected a GitHub token (printable characters, no spaces)").optional(),
  PREVIEWS_PER_APP: z.coerce.number().int().min(0, "expected 0 or more").default(3),
  POSTGRES_PROVISION_URL: url(["postgres:", "postgresql:"]).optional(),
  S3_ENDPOINT: url(["http:", "https:"]).optional(),
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  RUNTIME: z
    .enum(["local", "docker", "swarm"], { error: "expected local (sandboxed processes), docker (containers on one Docker engine) or swarm (services on a Docker Swarm, from a manager node)" })
    .default("local"),
  DOCKER_HOST: z
    .string()
    .regex(/^(unix|tcp|http|https):\/\/\S+$/, "expected unix:///var/run/docker.sock or tcp://host:2375")
    .optional(),
  DOCKER_BASE_IMAGE: z.string().regex(/^[\w][\w.\/:@-]*$/, "expected an image reference such as slipway/base:20").optional(),
  REGISTRY_URL: z
    .string()
    .regex(/^[a-z0-9.-]+(:\d{1,5})?$/i, "expected a registry's host[:port], such as 10.0.0.5:5000 (no scheme, no path)")
    .optional(),
  SANDBOX_ALLOW_PARTIAL: bool.default(false),
  KEEP_APPS_ON_SHUTDOWN: bool.default(true),
  DEFAULT_REQUESTS_PER_MINUTE: positiveInt.default(120),
  DEFAULT_MAX_APPS: z.coerce.number().int().min(0, "expected 0 or more").default(5),
  DEFAULT_MAX_DATABASES: z.coerce.number().int().min(0, "expected 0 or more").default(3),
  DEFAULT_MAX_INSTANCES: z.coerce.number().int().min(1, "expected 1 or more").max(100, "expected 100 or fewer").default(4),
  FORCED_SLEEP_AFTER_MINUTES: z.coerce.number().int().min(1, "expected 1 or more").max(10_080, "expected 10080 (a week) or fewer").optional(),
  DEFAULT_SLEEP_AFTER_MINUTES: z.coerce.number().int().min(1, "expected 1 or more").max(10_080, "expected 10080 (a week) or fewer").optional(),
  CLUSTER_LEASE_SECONDS: z.coerce.number().int("expected a whole number").min(3, "expected 3 or more").max(300, "expected 300 or fewer").default(10),
  HEALTH_CHECK_INTERVAL_MS: positiveInt.default(5000),
  HEALTH_CHECK_TIMEOUT_MS: positiveInt.default(2000),
  HEALTH_CHECK_FAILURES: positiveInt.default(3),
  HEALTH_CHECK_RESTART_AFTER: z.coerce.number().int("expected a whole number").min(0, "expected 0 (never) or more").default(12),
  DEFAULT_CDN_BYTES: positiveInt.default(100 * MiB),
  DEFAULT_MAX_UPLOAD_BYTES: positiveInt.default(50 * MiB),
  APP_MEMORY_MB: positiveInt.default(512),
  APP_CPU_PERCENT: positiveInt.default(100),
  APP_PIDS: positiveInt.default(256),
  BUILD_MEMORY_MB: positiveInt.default(1024),
  BUILD_CPU_PERCENT: positiveInt.default(200),
  BUILD_TIMEOUT_SECONDS: positiveInt.default(600),
  BUILD_ENV: buildEnv.default({}),
  BUILD_READONLY_PATHS: readOnlyPaths.default([]),
  START_TIMEOUT_SECONDS: positiveInt.default(60),
  LOG_RETENTION_LINES: positiveInt.default(10_000),
  RELEASES_KEPT: positiveInt.default(5),
  GRAPHQL_JIT: bool.default(true),
  GRAPHQL_FAST_PATH: bool.default(true),
  HTTP_BATCH_TURNS: bool.default(true),
  BACKUP_INTERVAL_HOURS: positiveInt.default(24),
  BACKUP_RETENTION_DAYS: positiveInt.default(7),
  METRICS_RETENTION_DAYS: z.coerce.number().int("expected a whole number").min(1, "expected 1 or more").max(90, "expected 90 or fewer").default(7),
  DOMAIN_VERIFY_RESOLVE: z
    .string()
    .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
    .refine((list) => list.every((pair) => /^[a-z0-9.-]+:[0-9a-f.:]+$/i.test(pair) && isIP(pair.slice(pair.indexOf(":") + 1)) !== 0), "expected hostname:ip pairs separated by commas, like shop.example.com:127.0.0.1")
    .default([]),
  DOMAIN_VERIFY_DNS_SERVERS: z
    .string()
    .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
    .default([]),
  EDGE: z.enum(["caddy"], { error: "expected caddy (or unset: the in-process router serves apps over HTTP)" }).optional(),
  CADDY_ADMIN: z
    .string()
    .refine(isLocalAdmin, "expected a loopback address like 127.0.0.1:2019 or [::1]:2019, or a unix socket path like /run/caddy/admin.sock (never a public address)")
    .default("127.0.0.1:2019"),
  EDGE_TLS: z.enum(["acme", "internal"], { error: "expected acme (Let's Encrypt/ZeroSSL) or internal (Caddy's local CA, tests and offline installs)" }).default("acme"),
  EDGE_HTTP_PORT: z.coerce.number({ error: "expected a port number" }).int().min(1, "expected a port number").max(65535, "expected a port number").default(80),
  EDGE_HTTPS_PORT: z.coerce.number({ error: "expected a port number" }).int().min(1, "expected a port number").max(65535, "expected a port number").default(443),
  EDGE_CDN_FILES: z.enum(["caddy", "slipway"], { error: "expected caddy (Caddy sends local CDN files with sendfile) or slipway (Slipway streams them)" }).default("caddy"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type Env = z.input<typeof schema>;

/** Never echoed in a configuration error. */
const SECRET_VARS = new Set(["GITHUB_TOKEN", "GITHUB_WEBHOOK_SECRET", "METRICS_TOKEN", "S3_SECRET_ACCESS_KEY", "POSTGRES_PROVISION_URL", "BUILD_ENV"]);

export interface Config {
  /** NODE_ENV=production: anonymous callers get no schema introspection. */
  production: boolean;
  /** Compiled execution (graphql-jit) for REST documents and /graphql operations; off runs graphql-js `execute`. */
  graphqlJit: boolean;
  /** JSON POSTs of known-valid /graphql documents run without yoga's HTTP pipeline (same answers); off sends every request through yoga. */
  graphqlFastPath: boolean;
  /** Requests read in one poll phase are handled together in the next check phase (http/batch-turns.ts). */
  httpBatchTurns: boolean;
  port: number;
  host: string;
  publicUrl: string;
  secureCookies: boolean;
  dataDir: string;
  /**
   * What every instance of one installation must see alike (SHARED_DATA_DIR, default DATA_DIR): the apps' own data
   * folders, zips received for deployment, the keys secrets are sealed with, and local object storage.
   */
  sharedDataDir: string;
  databaseUrl: string;
  databaseProvider: "sqlite" | "postgresql";
  redisUrl?: string;
  redisKeyPrefix: string;
  /** How long the leader's lease lasts unless renewed (renewed every third of it): how soon a dead leader is replaced. */
  clusterLeaseMs: number;
  adminEmails: Set<string>;
  /** Origins allowed to call /api and /graphql from a browser, with a Bearer token only (no credentials). */
  corsOrigins: ReadonlySet<string>;
  /** Outgoing mail: SMTP when smtpUrl is set, else written to the server log (development). */
  mail: { smtpUrl?: string; from: string };
  requireApproval: boolean;
  appsDomain: string;
  githubUrl: string;
  githubWebhookSecret?: string;
  /** GET /metrics asks for this bearer token; unset, it answers loopback callers only. */
  metricsToken?: string;
  /** The operator's token for private repositories, used when an app has none of its own. */
  githubToken?: string;
  /** How many preview apps (pull requests) one app may have at once. */
  previewsPerApp: number;
  /** A PostgreSQL role allowed to CREATE DATABASE/ROLE: enables postgres app databases (the default type then). */
  postgresProvisionUrl?: string;
  /** Every database is backed up each intervalHours; backups older than retentionDays are deleted. */
  backups: { intervalHours: number; retentionDays: number };
  /** Apps' CPU, memory and request metrics are kept at one-minute resolution for retentionDays, then deleted. */
  metrics: { retentionDays: number };
  s3?: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string };
  runtime: "local" | "docker" | "swarm";
  /**
   * RUNTIME=docker|swarm: the engine (DOCKER_HOST, else the local socket) and the image builds and apps start from;
   * RUNTIME=swarm: the registry every node pulls release images from (REGISTRY_URL; unset: a single node).
   */
  docker: { host?: string; baseImage?: string; registry?: string };
  /** Run apps even when a sandbox layer is unavailable on this machine (the boot log names which). */
  sandboxAllowPartial: boolean;
  defaultQuota: {
    requestsPerMinute: number;
    maxApps: number;
    maxDatabases: number;
    maxInstances: number;
    cdnBytes: bigint;
    maxUploadBytes: bigint;
  };
  /** A new app's sleepAfterMinutes (its owner may change it); unset: new apps never sleep. */
  defaultSleepAfterMinutes: number | null;
  /** FORCED_SLEEP_AFTER_MINUTES: the longest apps of accounts on the default limits stay awake idle; null: no rule. */
  forcedSleepAfterMinutes: number | null;
  /** OUTBOUND_ALLOWED_HOSTS: the loopback, link-local or private destinations webhooks and drains may still reach. */
  outboundAllowed: OutboundAllowList;
  /** DRAIN_CA_FILE: PEM certificates syslog+tls:// and https:// log drains trust besides the system's CAs. */
  drainCaFile: string | null;
  hosting: {
    limits: { memoryBytes: number; cpuPercent: number; pids: number };
    buildLimits: { memoryBytes: number; cpuPercent: number; pids: number };
    buildTimeoutMs: number;
    /** What every build sees besides the app's env vars: the operator's variables and read-only host folders. */
    build: { env: Record<string, string>; readOnlyPaths: string[] };
    startTimeoutMs: number;
    /** The periodic check of every running app instance (HEALTH_CHECK_*). */
    healthCheck: { intervalMs: number; timeoutMs: number; failures: number; restartAfter: number };
    logRetention: number;
    releasesKept: number;
    /**
     * Whether the apps' web instances keep running when the platform stops (an upgrade, a crash), for the next
     * start on the same DATA_DIR to adopt (KEEP_APPS_ON_SHUTDOWN; docker, and local inside bubblewrap).
     */
    keepAppsOnShutdown: boolean;
  };
  /** Custom domain verification (services/domains.ts). */
  domains: {
    /** Hostname → IP address overrides for the HTTP challenge fetch (tests, split-horizon DNS); else the system resolver. */
    resolve: ReadonlyMap<string, string>;
    /** DNS servers (ip or ip:port) for the TXT challenge lookup; empty: the system's. */
    dnsServers: string[];
  };
  /**
   * EDGE=caddy: Caddy serves the app hosts, custom domains and the platform's host over HTTPS, configured
   * through its admin API (server/platform/edge/); unset: the in-process router serves apps over HTTP.
   */
  edge?: {
    kind: "caddy";
    admin: CaddyAdmin;
    tls: "acme" | "internal";
    httpPort: number;
    httpsPort: number;
    /** Who sends the bytes of CDN files on local disk: Caddy (file_server, sendfile) after Slipway's lookup, or Slipway. */
    cdnFiles: "caddy" | "slipway";
  };
  logLevel: string;
}

export class ConfigError extends Error {}

/** Reads and validates the environment. Throws ConfigError with one line per bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const got = (name: string) => (SECRET_VARS.has(name) ? "[redacted]" : JSON.stringify(present[name] ?? ""));
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message} (got ${got(String(i.path[0]))})`);
    throw new ConfigError(`Invalid configuration: ${lines.join("; ")}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const databaseUrl = e.DATABASE_URL ?? `file:${path.join(dataDir, "slipway.db")}`;
  const s3Vars = { S3_ENDPOINT: e.S3_ENDPOINT, S3_BUCKET: e.S3_BUCKET, S3_ACCESS_KEY_ID: e.S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: e.S3_SECRET_ACCESS_KEY };
  const s3Missing = Object.entries(s3Vars).filter(([, v]) => !v).map(([name]) => name);
  if (s3Missing.length > 0 && s3Missing.length < 4) {
    throw new ConfigError(
      `Invalid configuration: S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (missing: ${s3Missing.join(", ")}); ` +
        "set them all for S3 storage, or none for local disk",
    );
  }
  return {
    production: e.NODE_ENV === "production",
    graphqlJit: e.GRAPHQL_JIT,
    graphqlFastPath: e.GRAPHQL_FAST_PATH,
    httpBatchTurns: e.HTTP_BATCH_TURNS,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    secureCookies: publicUrl.startsWith("https:"),
    dataDir,
    sharedDataDir: e.SHARED_DATA_DIR ? path.resolve(e.SHARED_DATA_DIR) : dataDir,
    databaseUrl,
    databaseProvider: databaseUrl.startsWith("file:") ? "sqlite" : "postgresql",
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    clusterLeaseMs: e.CLUSTER_LEASE_SECONDS * 1000,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM ?? `Slipway <no-reply@${new URL(publicUrl).hostname}>` },
    adminEmails: new Set(e.ADMIN_EMAILS.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean)),
    corsOrigins: new Set(e.CORS_ORIGINS.map((o) => o.toLowerCase())),
    requireApproval: e.REQUIRE_APPROVAL,
    appsDomain: e.APPS_DOMAIN.toLowerCase(),
    githubUrl: e.GITHUB_URL.replace(/\/+$/, ""),
    githubWebhookSecret: e.GITHUB_WEBHOOK_SECRET,
    metricsToken: e.METRICS_TOKEN,
    githubToken: e.GITHUB_TOKEN,
    previewsPerApp: e.PREVIEWS_PER_APP,
    postgresProvisionUrl: e.POSTGRES_PROVISION_URL,
    backups: { intervalHours: e.BACKUP_INTERVAL_HOURS, retentionDays: e.BACKUP_RETENTION_DAYS },
    metrics: { retentionDays: e.METRICS_RETENTION_DAYS },
    s3: e.S3_ENDPOINT
      ? { endpoint: e.S3_ENDPOINT, bucket: e.S3_BUCKET!, region: e.S3_REGION, accessKeyId: e.S3_ACCESS_KEY_ID!, secretAccessKey: e.S3_SECRET_ACCESS_KEY! }
      : undefined,
    runtime: e.RUNTIME,
    docker: { host: e.DOCKER_HOST, baseImage: e.DOCKER_BASE_IMAGE, registry: e.REGISTRY_URL },
    sandboxAllowPartial: e.SANDBOX_ALLOW_PARTIAL,
    defaultQuota: {
      requestsPerMinute: e.DEFAULT_REQUESTS_PER_MINUTE,
      maxApps: e.DEFAULT_MAX_APPS,
      maxDatabases: e.DEFAULT_MAX_DATABASES,
      maxInstances: e.DEFAULT_MAX_INSTANCES,
      cdnBytes: BigInt(e.DEFAULT_CDN_BYTES),
      maxUploadBytes: BigInt(e.DEFAULT_MAX_UPLOAD_BYTES),
    },
    defaultSleepAfterMinutes: e.DEFAULT_SLEEP_AFTER_MINUTES ?? null,
    forcedSleepAfterMinutes: e.FORCED_SLEEP_AFTER_MINUTES ?? null,
    outboundAllowed: e.OUTBOUND_ALLOWED_HOSTS,
    drainCaFile: e.DRAIN_CA_FILE ?? null,
    hosting: {
      limits: { memoryBytes: e.APP_MEMORY_MB * MiB, cpuPercent: e.APP_CPU_PERCENT, pids: e.APP_PIDS },
      buildLimits: { memoryBytes: e.BUILD_MEMORY_MB * MiB, cpuPercent: e.BUILD_CPU_PERCENT, pids: e.APP_PIDS },
      buildTimeoutMs: e.BUILD_TIMEOUT_SECONDS * 1000,
      build: { env: e.BUILD_ENV, readOnlyPaths: e.BUILD_READONLY_PATHS },
      startTimeoutMs: e.START_TIMEOUT_SECONDS * 1000,
      healthCheck: { intervalMs: e.HEALTH_CHECK_INTERVAL_MS, timeoutMs: e.HEALTH_CHECK_TIMEOUT_MS, failures: e.HEALTH_CHECK_FAILURES, restartAfter: e.HEALTH_CHECK_RESTART_AFTER },
      logRetention: e.LOG_RETENTION_LINES,
      releasesKept: e.RELEASES_KEPT,
      keepAppsOnShutdown: e.KEEP_APPS_ON_SHUTDOWN,
    },
    domains: {
      resolve: new Map(e.DOMAIN_VERIFY_RESOLVE.map((pair) => [pair.slice(0, pair.indexOf(":")).toLowerCase(), pair.slice(pair.indexOf(":") + 1)])),
      dnsServers: e.DOMAIN_VERIFY_DNS_SERVERS,
    },
    edge: e.EDGE
      ? { kind: e.EDGE, admin: caddyAdmin(e.CADDY_ADMIN), tls: e.EDGE_TLS, httpPort: e.EDGE_HTTP_PORT, httpsPort: e.EDGE_HTTPS_PORT, cdnFiles: e.EDGE_CDN_FILES }
      : undefined,
    logLevel: e.LOG_LEVEL,
  };
}

/**
 * Sound but risky settings, logged as warnings at boot. Apps on the dashboard's own site (registrable domain)
 * are same-site to it: browsers send it SameSite=Lax cookies and Sec-Fetch-Site "same-site", and the apps can set
 * cookies for the whole domain. Slipway refuses their requests all the same, but a separate domain is the safe
 * default (as Heroku serves apps from herokuapp.com).
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.edge && !config.secureCookies) {
    warnings.push(
      `EDGE=caddy serves the platform over HTTPS, but PUBLIC_URL (${config.publicUrl}) is http: set PUBLIC_URL=https://<host> ` +
        "so links, OAuth redirects and secure cookies name the HTTPS address.",
    );
  }
  const dashboard = new URL(config.publicUrl).hostname;
  const app = `app.${config.appsDomain}`;
  if (siteOf(app) !== siteOf(dashboard) && !app.endsWith(`.${dashboard}`)) return warnings;
  return [
    ...warnings,
    `APPS_DOMAIN (${config.appsDomain}) is on the same site as PUBLIC_URL (${dashboard}): in production, serve apps from ` +
      "another registrable domain, so that no hosted app is same-site to the dashboard.",
  ];
}

/** The registrable domain (eTLD+1, private suffixes like herokuapp.com included), or the host itself (IPs, localhost). */
function siteOf(host: string): string {
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}
