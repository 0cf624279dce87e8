// Boots the real server on a free port with a freshly migrated database: SQLite in a temp folder by
// default, a new PostgreSQL database when TEST_DATABASE=postgres; apps run on SLIPWAY_TEST_RUNTIME (local, docker, swarm).
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { buildSlipway, type Slipway, type SlipwayOptions } from "../../server/app.ts";
import { loadConfig, type Config } from "../../server/config.ts";
import { TEST_RUNTIME, removeDockerLeftovers, runtimeEnv } from "./runtime.ts";

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestServer {
  url: string;
  config: Config;
  slipway: Slipway;
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `slipway_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * `options` reach buildSlipway as they are (say, a RouteTable for app hosts). The port is chosen before the
 * server listens (PUBLIC_URL names it), so another process may take it in between: that start is retried.
 */
export async function startServer(env: Record<string, string> = {}, options: SlipwayOptions = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(env, options);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || attempt === 5 || env.PORT) throw error;
    }
  }
}

async function startServerOnce(env: Record<string, string>, options: SlipwayOptions): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-test-"));
  const database = process.env.TEST_DATABASE === "postgres" && !env.DATABASE_URL ? await createPostgresDatabase() : null;
  const port = await freePort();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: "silent",
    ...runtimeEnv(),
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...env,
  });
  const slipway = await buildSlipway(config, options);
  try {
    await slipway.listen();
  } catch (error) {
    await slipway.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: config.publicUrl,
    config,
    slipway,
    async close() {
      await slipway.close();
      if (config.runtime !== "local") await removeDockerLeftovers(dataDir);
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
