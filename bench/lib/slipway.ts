// Boots the real Slipway server in this process (fresh SQLite database in a temp folder, silent logs)
// and signs up an account, the way a browser would, to get its session cookie.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { buildSlipway, type Slipway, type SlipwayOptions } from "../../server/app.ts";
import { loadConfig } from "../../server/config.ts";

export interface BenchServer {
  url: string;
  slipway: Slipway;
  /** The platform's DATA_DIR (removed on close). */
  dataDir: string;
  close(): Promise<void>;
}

/**
 * `addRoutes` may add bench-only routes to the real app before it listens (see suites/me-layers.ts);
 * `options` reach buildSlipway (the router suite's RouteTable).
 */
export async function startSlipway(
  env: Record<string, string> = {},
  addRoutes?: (app: FastifyInstance) => void,
  options: SlipwayOptions = {},
): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-"));
  try {
    // PORT 0: the OS picks a free port; PUBLIC_URL only matters for cookies and CSRF, which a
    // same-origin client without an Origin header does not trigger.
    // KEEP_APPS_ON_SHUTDOWN=false: the apps a bench deployed go with its server.
    const config = loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", KEEP_APPS_ON_SHUTDOWN: "false", ...env });
    const slipway = await buildSlipway(config, options);
    addRoutes?.(slipway.app);
    const url = await slipway.listen();
    return {
      url,
      slipway,
      dataDir,
      async close() {
        await slipway.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Creates an account and returns its `slipway_session=…` cookie pair. */
export async function signUp(baseUrl: string, name: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `${name}@example.com`, password: "correct horse battery", name }),
  });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${await res.text()}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("slipway_session="));
  if (!cookie) throw new Error("signup answered 201 without a session cookie");
  return cookie.split(";")[0];
}

/** One request, expected to answer 200 with JSON; returns the parsed body. */
export async function fetchJson(url: string, init: RequestInit = {}): Promise<unknown> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${init.method ?? "GET"} ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}
