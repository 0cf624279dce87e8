// What the router suite compares: the app itself (its own process), nginx with upstream keep-alive, Caddy (the
// EDGE=caddy route and two floors), and @fastify/reply-from standalone, each started here and stopped by `close`.
import replyFrom from "@fastify/reply-from";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import Fastify from "fastify";
import { BENCH_DIR } from "./paths.ts";
import { appHandler } from "../../server/platform/edge/caddy.ts";
import { startUpstreamDns } from "../../server/platform/edge/caddy-dns.ts";

export interface Running {
  url: string;
  close(): Promise<void>;
}

const OK_APP = path.join(BENCH_DIR, "lib/ok-app.mjs");

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

export async function startOkApp(): Promise<Running & { port: number }> {
  const child = spawn(process.execPath, [OK_APP], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the app exited with ${code} before listening`)));
    child.stdout!.once("data", (data: Buffer) => resolve(Number(data.toString().trim())));
  });
  return { url: `http://127.0.0.1:${port}/`, port, close: () => stop(child) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, log: string, name = "nginx"): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${fs.readFileSync(log, "utf8")}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(socket.end() && true)).once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} did not listen on ${port}: ${fs.readFileSync(log, "utf8")}`);
}

/** The nginx binary, or null when it is not installed (`apt-get install nginx-light`). */
export function nginxBinary(): string | null {
  for (const candidate of ["nginx", "/usr/sbin/nginx"]) {
    if (spawnSync(candidate, ["-v"], { stdio: "ignore" }).status === 0) return candidate;
  }
  return null;
}

export interface NginxOptions {
  /** worker_processes (1 by default). */
  workers?: number;
  /** Serve HTTPS with this certificate (PEM files) and answer `ok` itself: for the TLS handshake rate only. */
  tls?: { cert: string; key: string };
}

/** nginx in the foreground with its own prefix folder: proxy_pass to the app with 32 idle keep-alive connections. */
export async function startNginx(binary: string, appPort: number, options: NginxOptions = {}): Promise<Running & { port: number }> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-nginx-"));
  fs.chmodSync(prefix, 0o755); // workers run as `nobody` when the bench runs as root
  const port = await freePort();
  const log = path.join(prefix, "error.log");
  const conf = path.join(prefix, "nginx.conf");
  const server = options.tls
    ? `listen 127.0.0.1:${port} ssl;
    ssl_certificate ${options.tls.cert};
    ssl_certificate_key ${options.tls.key};
    ssl_protocols TLSv1.2 TLSv1.3;
    location / { return 200 "ok"; }`
    : `listen 127.0.0.1:${port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
    }`;
  fs.writeFileSync(
    conf,
    `worker_processes ${options.workers ?? 1};
daemon off;
pid ${prefix}/nginx.pid;
error_log ${log} warn;
events { worker_connections 1024; }
http {
  access_log off;
  # nginx closes a client connection after 1000 requests by default; the load generator counts that as errors.
  keepalive_requests 1000000000;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream app { server 127.0.0.1:${appPort}; keepalive 32; keepalive_requests 1000000000; }
  server {
    ${server}
  }
}
`,
  );
  const child = spawn(binary, ["-p", prefix, "-c", conf, "-e", log], { stdio: "ignore" });
  try {
    await waitForPort(port, child, log);
  } catch (error) {
    await stop(child);
    throw error;
  }
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}/`,
    port,
    async close() {
      await stop(child);
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** Whether Debian's `caddy` is installed (`apt-get install caddy`). */
export function hasCaddy(): boolean {
  return spawnSync("caddy", ["version"], { stdio: "ignore" }).status === 0;
}

/** What the Caddy server under test does with a request for its host. */
export type CaddyRoute =
  /** EDGE=caddy's route for a running app (`appHandler` in server/platform/edge/caddy.ts). */
  | "edge"
  /** A floor: `reverse_proxy` to the app and nothing else (no header operations, default transport). */
  | "bare"
  /** A floor without any proxying: `static_response` answering `ok`. */
  | "static";

export interface CaddyOptions {
  route: CaddyRoute;
  /** GOMAXPROCS (1: one core, like nginx's one worker). */
  procs: number;
  /** Serve HTTPS with a certificate from Caddy's local CA (`tls internal`) for `host` instead of plain HTTP. */
  tls?: boolean;
}

/**
 * Caddy on its own port with one route for `host` (see CaddyRoute), admin endpoint off, logs at ERROR only.
 * With `tls`, `certificates` names the PEM files Caddy's local CA issued for the host (for nginx to serve the same).
 */
export async function startCaddy(appPort: number, host: string, options: CaddyOptions): Promise<Running & { port: number; certificates?: { cert: string; key: string } }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-caddy-"));
  fs.chmodSync(dir, 0o755); // nginx's workers read the certificate as `nobody` when the bench runs as root
  const port = await freePort();
  const log = path.join(dir, "caddy.log");
  const upstream = { host: "127.0.0.1", port: appPort };
  // EDGE=caddy's route finds the app's instances by DNS (server/platform/edge/caddy-dns.ts): the same server here.
  const dns = options.route === "edge" ? await startUpstreamDns("127.0.0.1") : null;
  dns?.publish([["bench", { kind: "proxy", upstreams: [upstream] }]]);
  const handle =
    options.route === "edge"
      ? appHandler({ upstreams: [upstream] }, { slug: "bench", resolvers: [dns!.address], fallbacks: ["127.0.0.1:9"] /* nothing listens: a failed lookup shows as errors */ })
      : options.route === "bare"
        ? { handler: "reverse_proxy", upstreams: [{ dial: `127.0.0.1:${appPort}` }] }
        : { handler: "static_response", status_code: 200, body: "ok" };
  const config = {
    admin: { disabled: true },
    logging: { logs: { default: { level: "ERROR" } } },
    apps: {
      http: {
        servers: {
          bench: {
            listen: [`127.0.0.1:${port}`],
            automatic_https: options.tls ? { disable_redirects: true } : { disable: true },
            routes: [{ match: [{ host: [host] }], handle: [handle], terminal: true }],
            ...(options.tls ? { tls_connection_policies: [{}] } : {}),
          },
        },
      },
      ...(options.tls
        ? {
            tls: { automation: { policies: [{ subjects: [host], issuers: [{ module: "internal" }] }] } },
            pki: { certificate_authorities: { local: { install_trust: false } } },
          }
        : {}),
    },
  };
  fs.writeFileSync(path.join(dir, "caddy.json"), JSON.stringify(config));
  const env = { ...process.env, GOMAXPROCS: String(options.procs), HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir };
  const child = spawn("caddy", ["run", "--config", path.join(dir, "caddy.json")], { env, stdio: ["ignore", "ignore", fs.openSync(log, "a")] });
  let certificates: { cert: string; key: string } | undefined;
  try {
    await waitForPort(port, child, log, "caddy");
    if (options.tls) {
      const folder = path.join(dir, "caddy", "certificates", "local", host);
      const cert = path.join(folder, `${host}.crt`);
      for (let i = 0; i < 100 && !fs.existsSync(cert); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      if (!fs.existsSync(cert)) throw new Error(`caddy issued no certificate for ${host}: ${fs.readFileSync(log, "utf8")}`);
      for (const file of [dir, path.join(dir, "caddy"), path.join(dir, "caddy", "certificates"), path.join(dir, "caddy", "certificates", "local"), folder]) fs.chmodSync(file, 0o755);
      fs.chmodSync(path.join(folder, `${host}.key`), 0o644);
      certificates = { cert, key: path.join(folder, `${host}.key`) };
    }
  } catch (error) {
    await stop(child);
    await dns?.close();
    throw error;
  }
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}/`,
    port,
    certificates,
    async close() {
      await stop(child);
      await dns?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** @fastify/reply-from on a bare Fastify app (its default undici agent), forwarding every GET to the app. */
export async function startReplyFrom(appUrl: string): Promise<Running> {
  const app = Fastify({ logger: false });
  await app.register(replyFrom, { base: appUrl });
  app.get("/*", (request, reply) => reply.from(request.url));
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${address.port}/`, close: () => app.close() };
}
