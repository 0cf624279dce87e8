// The CDN suite's Caddy: the edge Slipway drives (EDGE=caddy, EDGE_TLS=internal, admin endpoint on loopback), and
// a second Caddy on plain HTTP running the very CDN route Slipway loaded into the first (read back from its
// admin API, token included), to compare file_server's sendfile with nginx's on equal terms (no TLS).
// GOMAXPROCS=1 for both: one core, like nginx's one worker.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { adminRequest } from "../../server/platform/edge/caddy.ts";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 5000).unref();
  });
}

function runCaddy(dir: string, config: unknown): ChildProcess {
  fs.writeFileSync(path.join(dir, "caddy.json"), JSON.stringify(config));
  const env = { ...process.env, GOMAXPROCS: "1", HOME: dir, XDG_DATA_HOME: path.join(dir, "data"), XDG_CONFIG_HOME: path.join(dir, "config") };
  return spawn("caddy", ["run", "--config", path.join(dir, "caddy.json")], { env, stdio: ["ignore", "ignore", fs.openSync(path.join(dir, "caddy.log"), "a")] });
}

async function until(check: () => Promise<boolean>, child: ChildProcess, what: string, dir: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}): ${fs.readFileSync(path.join(dir, "caddy.log"), "utf8").slice(-1000)}`);
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not start`);
}

/** A Caddy with nothing but its admin endpoint, and the environment that makes Slipway its edge. */
export async function startEdgeCaddy() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-edge-"));
  const admin = { host: "127.0.0.1", port: await freePort() };
  const ports = { http: await freePort(), https: await freePort() };
  const child = runCaddy(dir, { admin: { listen: `127.0.0.1:${admin.port}` }, logging: { logs: { default: { level: "ERROR" } } } });
  await until(() => adminRequest(admin, "GET", "/config/").then((r) => r.status === 200), child, "Caddy (edge)", dir);
  return {
    pid: child.pid!,
    httpsUrl: `https://127.0.0.1:${ports.https}`,
    env: { EDGE: "caddy", EDGE_TLS: "internal", CADDY_ADMIN: `127.0.0.1:${admin.port}`, EDGE_HTTP_PORT: String(ports.http), EDGE_HTTPS_PORT: String(ports.https) },
    /** Caddy's local CA, which signs the HTTPS port's certificate. */
    async ca(): Promise<string> {
      return JSON.parse((await adminRequest(admin, "GET", "/pki/ca/local")).body).root_certificate;
    },
    /** The CDN routes Slipway loaded (caddy-cdn.ts), as Caddy holds them: the direct route, then the lookup route. */
    async cdnRoutes(): Promise<{ direct: Record<string, unknown>; lookup: Record<string, unknown> }> {
      const routes = JSON.parse((await adminRequest(admin, "GET", "/config/apps/http/servers/slipway/routes")).body) as Record<string, unknown>[];
      const direct = routes.find((r) => JSON.stringify(r.match ?? []).includes('"^/cdn/'));
      const lookup = routes.find((r) => JSON.stringify(r.match ?? []).includes('"/cdn/*"'));
      if (!direct || !lookup) throw new Error("Slipway loaded no CDN routes into Caddy (EDGE_CDN_FILES=caddy and local storage expected)");
      return { direct, lookup };
    },
    async close() {
      await stop(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A second Caddy serving `routes` on plain HTTP (admin endpoint off, no automatic HTTPS). */
export async function startPlainCaddy(...routes: Record<string, unknown>[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-plain-caddy-"));
  const port = await freePort();
  const child = runCaddy(dir, {
    admin: { disabled: true },
    logging: { logs: { default: { level: "ERROR" } } },
    apps: { http: { servers: { plain: { listen: [`127.0.0.1:${port}`], automatic_https: { disable: true }, routes } } } },
  });
  const url = `http://127.0.0.1:${port}`;
  await until(() => fetch(url).then(() => true), child, "Caddy (plain HTTP)", dir);
  return {
    url,
    pid: child.pid!,
    async close() {
      await stop(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
