// A real Caddy for the edge tests: `caddy run` with nothing but its admin endpoint (Slipway loads the rest), in
// a folder of its own (its data: the local CA, certificates), its log in caddy.log there.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { adminRequest } from "../../server/platform/edge/caddy.ts";
import { waitFor } from "./apps.ts";
import { freePort } from "./server.ts";

export const HAS_CADDY = spawnSync("caddy", ["version"], { stdio: "ignore" }).status === 0;

export interface TestCaddy {
  dir: string;
  admin: { host: string; port: number };
  ports: { http: number; https: number };
  /** The env vars that put a platform behind this Caddy (EDGE_TLS=internal). */
  env: Record<string, string>;
  /** Caddy's local CA root, for HTTPS clients. */
  ca(): Promise<string>;
  /** Lines of Caddy's log that contain `text`. */
  logLines(text: string): string[];
  stop(): Promise<void>;
}

export async function startCaddy(prefix = "slipway-caddy-"): Promise<TestCaddy> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const admin = { host: "127.0.0.1", port: await freePort() };
  const ports = { http: await freePort(), https: await freePort() };
  fs.writeFileSync(path.join(dir, "boot.json"), JSON.stringify({ admin: { listen: `127.0.0.1:${admin.port}` } }));
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, "data"), XDG_CONFIG_HOME: path.join(dir, "config") };
  const caddy: ChildProcess = spawn("caddy", ["run", "--config", path.join(dir, "boot.json")], { env, stdio: ["ignore", "ignore", fs.openSync(path.join(dir, "caddy.log"), "a")] });
  await waitFor(() => adminRequest(admin, "GET", "/config/").then((r) => r.status === 200, () => false), 15_000, "Caddy's admin API");
  return {
    dir,
    admin,
    ports,
    env: { EDGE: "caddy", EDGE_TLS: "internal", CADDY_ADMIN: `127.0.0.1:${admin.port}`, EDGE_HTTP_PORT: String(ports.http), EDGE_HTTPS_PORT: String(ports.https) },
    async ca() {
      return JSON.parse((await adminRequest(admin, "GET", "/pki/ca/local")).body).root_certificate as string;
    },
    logLines: (text) => fs.readFileSync(path.join(dir, "caddy.log"), "utf8").split("\n").filter((line) => line.includes(text)),
    async stop() {
      if (caddy.exitCode === null) {
        const exited = new Promise((resolve) => caddy.once("exit", resolve));
        caddy.kill("SIGTERM");
        await exited;
      }
      if (process.env.KEEP_CADDY_DIR) console.log("caddy dir", dir);
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One GET through Caddy's HTTPS port (any host name reaches 127.0.0.1), on a kept-alive connection; sent again once
 * when the connection closed before any answer, as browsers do (RFC 9110 §9.2.2).
 */
export async function httpsGet(url: string, ca: string, agent: https.Agent): Promise<{ status: number; body: string }> {
  const once = (via: https.Agent | false) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.get(url, { ca, agent: via, lookup: (_h, _o, cb) => cb(null, [{ address: "127.0.0.1", family: 4 }]) }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
        res.on("error", reject);
      });
      let answered = false;
      req.on("response", () => (answered = true));
      req.setTimeout(30_000, () => req.destroy(new Error("timed out")));
      req.on("error", (error) => reject(Object.assign(error, { unanswered: !answered })));
    });
  try {
    return await once(agent);
  } catch (error) {
    if (!(error as { unanswered?: boolean }).unanswered) throw error;
    return once(false);
  }
}
