// The runtime driver, chosen once from the configuration; the report of what it enforces is logged at boot.
import { lookup } from "node:dns/promises";
import type { Config } from "../../config.ts";
import { createDockerDriver } from "./docker/driver.ts";
import { createLocalDriver } from "./local/driver.ts";
import { createSwarmDriver } from "./swarm/driver.ts";
import type { RuntimeDriver, SandboxReport } from "./types.ts";

export type * from "./types.ts";
export { SandboxUnavailableError } from "./errors.ts";

export type RuntimeConfig = Pick<Config, "runtime" | "dataDir" | "sandboxAllowPartial"> & Partial<Pick<Config, "sharedDataDir" | "postgresProvisionUrl" | "docker" | "hosting">>;

export interface RuntimeLogger {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * toolchains: the Debian packages of the builders' toolchains, which the container runtimes' base image holds;
 * platformKey: what the container runtimes label their containers with (default: one per DATA_DIR).
 */
export async function createRuntime(config: RuntimeConfig, log?: RuntimeLogger, toolchains: readonly (string | RegExp)[] = [], platformKey?: string): Promise<RuntimeDriver> {
  const forward = config.postgresProvisionUrl ? await postgresEndpoint(config.postgresProvisionUrl) : undefined;
  const driver =
    config.runtime === "swarm"
      ? await createSwarmDriver({
          dataDir: config.dataDir,
          platformKey,
          sharedDataDir: config.sharedDataDir,
          allowPartial: config.sandboxAllowPartial,
          dockerHost: config.docker?.host,
          baseImage: config.docker?.baseImage,
          toolchains,
          registry: config.docker?.registry ?? null,
          startTimeoutMs: config.hosting?.startTimeoutMs ?? 60_000,
          forward,
          log: log && ((line) => log.info(`swarm runtime: ${line}`)),
        })
      : config.runtime === "docker"
      ? await createDockerDriver({
          dataDir: config.dataDir,
          platformKey,
          sharedDataDir: config.sharedDataDir,
          allowPartial: config.sandboxAllowPartial,
          dockerHost: config.docker?.host,
          baseImage: config.docker?.baseImage,
          toolchains,
          registry: config.docker?.registry ?? null,
          forward,
          log: log && ((line) => log.info(`docker runtime: ${line}`)),
        })
      : await createLocalDriver({ dataDir: config.dataDir, sharedDataDir: config.sharedDataDir, allowPartial: config.sandboxAllowPartial, forward });
  if (log) logSandbox(driver.sandbox, config.sandboxAllowPartial, log);
  return driver;
}

/** The provision server's IPv4 address and port: the one host service apps may reach (their databases). */
export async function postgresEndpoint(url: string): Promise<{ host: string; port: number }> {
  const parsed = new URL(url);
  const hostname = parsed.hostname.replace(/^\[|\]$/g, "");
  const { address } = await lookup(hostname, { family: 4 }).catch((error: Error) => {
    throw new Error(`POSTGRES_PROVISION_URL: the host ${hostname} does not resolve to an IPv4 address (${error.message})`);
  });
  return { host: address, port: Number(parsed.port || 5432) };
}

/** One line per layer, then what follows for apps when some layer is missing. */
export function describeSandbox(report: SandboxReport): string[] {
  return report.layers.map((l) => `sandbox ${l.name}: ${l.enforced ? "enforced" : "NOT enforced"}: ${l.detail}`);
}

function logSandbox(report: SandboxReport, allowPartial: boolean, log: RuntimeLogger): void {
  for (const line of describeSandbox(report)) log.info(`${report.driver} runtime: ${line}`);
  const missing = report.layers.filter((l) => !l.enforced).map((l) => l.name);
  if (missing.length === 0) return;
  log.warn(
    allowPartial
      ? `SANDBOX_ALLOW_PARTIAL=true: apps run without ${missing.join(", ")}`
      : `apps and builds will be refused: the sandbox lacks ${missing.join(", ")} (set SANDBOX_ALLOW_PARTIAL=true to run them anyway)`,
  );
}
