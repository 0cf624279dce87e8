// The one module that reads process.env. Every variable of the contract's configuration table is
// validated here at boot; a bad value stops the server with one line naming the variable.
import path from "node:path";
import { z } from "zod";

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

const schema = z.object({
  PORT: z.coerce.number({ error: "expected a port number" }).int().min(0).max(65535, "expected a port number").default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_URL: url(["http:", "https:"]).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .refine((v) => /^(file:|postgres(ql)?:\/\/)/.test(v), "expected file:<path> (SQLite) or postgresql://… (PostgreSQL)")
    .optional(),
  REDIS_URL: url(["redis:", "rediss:"]).optional(),
  REDIS_KEY_PREFIX: z.string().regex(/^[\w:.-]*$/, "expected letters, digits, ':', '.', '_' or '-'").default("slipway:"),
  ADMIN_EMAILS: z.string().default(""),
  REQUIRE_APPROVAL: bool.default(false),
  APPS_DOMAIN: z.string().regex(/^[a-z0-9.-]+$/i, "expected a domain name like apps.example.com").default("localhost"),
  GITHUB_URL: z.string().min(1).default("https://github.com"),
  GITHUB_WEBHOOK_SECRET: z.string().min(1).optional(),
  POSTGRES_PROVISION_URL: url(["postgres:", "postgresql:"]).optional(),
  S3_ENDPOINT: url(["http:", "https:"]).optional(),
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  RUNTIME: z.enum(["local", "kubernetes"], { error: "expected local or kubernetes" }).default("local"),
  DEFAULT_REQUESTS_PER_MINUTE: positiveInt.default(120),
  DEFAULT_MAX_APPS: z.coerce.number().int().min(0, "expected 0 or more").default(5),
  DEFAULT_MAX_DATABASES: z.coerce.number().int().min(0, "expected 0 or more").default(3),
  DEFAULT_CDN_BYTES: positiveInt.default(100 * MiB),
  DEFAULT_MAX_UPLOAD_BYTES: positiveInt.default(50 * MiB),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type Env = z.input<typeof schema>;

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  secureCookies: boolean;
  dataDir: string;
  databaseUrl: string;
  databaseProvider: "sqlite" | "postgresql";
  redisUrl?: string;
  redisKeyPrefix: string;
  adminEmails: Set<string>;
  requireApproval: boolean;
  appsDomain: string;
  githubUrl: string;
  githubWebhookSecret?: string;
  postgresProvisionUrl?: string;
  s3?: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string };
  runtime: "local" | "kubernetes";
  defaultQuota: {
    requestsPerMinute: number;
    maxApps: number;
    maxDatabases: number;
    cdnBytes: bigint;
    maxUploadBytes: bigint;
  };
  logLevel: string;
}

export class ConfigError extends Error {}

/** Reads and validates the environment. Throws ConfigError with one line per bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message} (got ${JSON.stringify(present[String(i.path[0])] ?? "")})`);
    throw new ConfigError(`Invalid configuration: ${lines.join("; ")}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const databaseUrl = e.DATABASE_URL ?? `file:${path.join(dataDir, "slipway.db")}`;
  const s3Vars = [e.S3_ENDPOINT, e.S3_BUCKET, e.S3_ACCESS_KEY_ID, e.S3_SECRET_ACCESS_KEY];
  if (s3Vars.some(Boolean) && !s3Vars.every(Boolean)) {
    throw new ConfigError("Invalid configuration: S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together");
  }
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    secureCookies: publicUrl.startsWith("https:"),
    dataDir,
    databaseUrl,
    databaseProvider: databaseUrl.startsWith("file:") ? "sqlite" : "postgresql",
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    adminEmails: new Set(e.ADMIN_EMAILS.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean)),
    requireApproval: e.REQUIRE_APPROVAL,
    appsDomain: e.APPS_DOMAIN.toLowerCase(),
    githubUrl: e.GITHUB_URL.replace(/\/+$/, ""),
    githubWebhookSecret: e.GITHUB_WEBHOOK_SECRET,
    postgresProvisionUrl: e.POSTGRES_PROVISION_URL,
    s3: e.S3_ENDPOINT
      ? { endpoint: e.S3_ENDPOINT, bucket: e.S3_BUCKET!, region: e.S3_REGION, accessKeyId: e.S3_ACCESS_KEY_ID!, secretAccessKey: e.S3_SECRET_ACCESS_KEY! }
      : undefined,
    runtime: e.RUNTIME,
    defaultQuota: {
      requestsPerMinute: e.DEFAULT_REQUESTS_PER_MINUTE,
      maxApps: e.DEFAULT_MAX_APPS,
      maxDatabases: e.DEFAULT_MAX_DATABASES,
      cdnBytes: BigInt(e.DEFAULT_CDN_BYTES),
      maxUploadBytes: BigInt(e.DEFAULT_MAX_UPLOAD_BYTES),
    },
    logLevel: e.LOG_LEVEL,
  };
}
