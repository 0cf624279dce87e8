// What the router suite compares: the app itself (its own process), nginx with upstream keep-alive, and
// @fastify/reply-from standalone, each started here and stopped by `close`.
import replyFrom from "@fastify/reply-from";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Fastify from "fastify";
import { appHandler } from "../../server/platform/edge/caddy.ts";

export interface Running {
  url: string;
  close(): Promise<void>;
}

const OK_APP = path.join(path.dirname(fileURLToPath(import.meta.url)), "ok-app.mjs");

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

/** nginx in the foreground with its own prefix folder: one worker, proxy_pass to the app with 32 idle keep-alive connections. */
export async function startNginx(binary: string, appPort: number): Promise<Running> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-nginx-"));
  fs.chmodSync(prefix, 0o755); // workers run as `nobody` when the bench runs as root
  const port = await freePort();
  const log = path.join(prefix, "error.log");
  const conf = path.join(prefix, "nginx.conf");
  fs.writeFileSync(
    conf,
    `worker_processes 1;
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
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
    }
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
    url: `http://127.0.0.1:${port}/`,
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

/**
 * Caddy as EDGE=caddy configures it for a running app (a host matcher, then `appHandler`: reverse_proxy with its
 * default keep-alive pool and the Set-Cookie rewrite), on plain HTTP like the nginx row, admin endpoint off.
 * GOMAXPROCS=1: one core, like nginx's one worker.
 */
export async function startCaddy(appPort: number, host: string): Promise<Running> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-caddy-"));
  const port = await freePort();
  const log = path.join(dir, "caddy.log");
  const config = {
    admin: { disabled: true },
    logging: { logs: { default: { level: "ERROR" } } },
    apps: {
      http: {
        servers: {
          bench: {
            listen: [`127.0.0.1:${port}`],
            automatic_https: { disable: true },
            routes: [{ match: [{ host: [host] }], handle: [appHandler({ upstreams: [{ host: "127.0.0.1", port: appPort }] })], terminal: true }],
          },
        },
      },
    },
  };
  fs.writeFileSync(path.join(dir, "caddy.json"), JSON.stringify(config));
  const env = { ...process.env, GOMAXPROCS: "1", HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir };
  const child = spawn("caddy", ["run", "--config", path.join(dir, "caddy.json")], { env, stdio: ["ignore", "ignore", fs.openSync(log, "a")] });
  try {
    await waitForPort(port, child, log, "caddy");
  } catch (error) {
    await stop(child);
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      await stop(child);
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
