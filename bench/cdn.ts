// `npm run bench:cdn`: CDN downloads (1 MiB and 100 MiB files) through Slipway's local content path, and through
// the Caddy edge that sends them with file_server (HTTP and HTTPS; its direct route, and its lookup route alone),
// against nginx (`sendfile on`) serving the same files in the same run, with floors for Node, for a bare Caddy
// file_server and for the lookup route, and the platform's peak RSS while a 1 GiB file is uploaded. Slipway runs as
// its own process (`node --import tsx server/main.ts`), so its RSS is its own; the load generator runs here. Writes the "cdn" section of bench/RESULTS.md.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { startEdgeCaddy, startPlainCaddy } from "./lib/caddy-edge.ts";
import { cpuSeconds } from "./lib/cpu.ts";
import { hasCaddy, nginxBinary } from "./lib/proxies.ts";
import { mb, report } from "./lib/cdn-report.ts";
import { writeSection } from "./lib/report.ts";
import { signUp } from "./lib/slipway.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MiB = 1024 * 1024;
const CONNECTIONS = 4;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const UPLOAD_BYTES = 1024 * MiB;
/** For quick probes while working on one path: `CDN_ONLY=nginx,caddy CDN_FILES=one-mib.bin` (prints, writes nothing). */
const ONLY = process.env.CDN_ONLY?.split(",");
const ONLY_FILES = process.env.CDN_FILES?.split(",");
const PROBE = ONLY !== undefined || ONLY_FILES !== undefined;

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitFor(url: string, child: ChildProcess) {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited (${child.exitCode})`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not answer`);
}

function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

async function startSlipwayProcess(dataDir: string, edgeEnv: Record<string, string>) {
  const port = await freePort();
  // `node --import tsx`, not the tsx CLI (which runs the script in a child process): one process to measure.
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "silent",
      DEFAULT_REQUESTS_PER_MINUTE: "100000000",
      DEFAULT_CDN_BYTES: String(4 * 1024 * MiB),
      DEFAULT_MAX_UPLOAD_BYTES: String(2 * 1024 * MiB),
      SANDBOX_ALLOW_PARTIAL: "true",
      ...edgeEnv,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/openapi.json`, child);
  return { url, child, close: () => stop(child) };
}

async function startNginxStatic(binary: string, root: string) {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-nginx-"));
  fs.chmodSync(prefix, 0o755);
  const port = await freePort();
  const tlsPort = await freePort();
  // A self-signed certificate for 127.0.0.1 (ECDSA P-256, as Caddy's local CA issues) for the HTTPS row.
  const certificate = ["-keyout", `${prefix}/key.pem`, "-out", `${prefix}/cert.pem`, "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"];
  const made = spawnSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", ...certificate], { stdio: "ignore" });
  if (made.status !== 0) throw new Error("openssl could not make a certificate for nginx's HTTPS row");
  const conf = path.join(prefix, "nginx.conf");
  fs.writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
user root;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000000;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  server {
    listen 127.0.0.1:${port};
    listen 127.0.0.1:${tlsPort} ssl;
    ssl_certificate ${prefix}/cert.pem;
    ssl_certificate_key ${prefix}/key.pem;
    root ${root};
    etag on;
    add_header Cache-Control "public, max-age=31536000, immutable";
  }
}
`,
  );
  const child = spawn(binary, ["-p", prefix, "-c", conf], { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/`, child).catch(() => {});
  return {
    url,
    pid: child.pid!,
    tlsUrl: `https://127.0.0.1:${tlsPort}`,
    ca: fs.readFileSync(`${prefix}/cert.pem`, "utf8"),
    async close() {
      await stop(child);
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}

// The floor for any Node server: a bare `http` server in its own process streaming the file with
// fs.createReadStream (no framework, no lookup, no headers beyond type and length).
const NODE_FLOOR = `
const http = require("node:http"), fs = require("node:fs"), path = require("node:path");
const [root, port] = process.argv.slice(1);
http.createServer((req, res) => {
  const file = path.join(root, path.basename(decodeURIComponent(req.url)));
  fs.stat(file, (error, stats) => {
    if (error || !stats.isFile()) { res.statusCode = 404; return res.end(); }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": stats.size });
    fs.createReadStream(file).pipe(res);
  });
}).listen(Number(port), "127.0.0.1");`;

async function startNodeFloor(root: string) {
  const port = await freePort();
  const child = spawn(process.execPath, ["-e", NODE_FLOOR, root, String(port)], { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/`, child);
  return { url, pid: child.pid!, close: () => stop(child) };
}

// The floor for the edge's lookup: what the same Caddy route reaches when its upstream is a bare `http` server
// answering each content path with the file's name at once (no database, no validators, no checks).
const LOOKUP_FLOOR = `
const http = require("node:http");
const [names, port] = process.argv.slice(1);
const sendfile = JSON.parse(names);
http.createServer((req, res) => {
  const name = sendfile[req.url.split("?")[0]];
  res.writeHead(name ? 200 : 404, name ? { "content-type": "application/octet-stream", "content-length": "0", "x-slipway-sendfile": name, "x-slipway-range": "" } : { "content-length": "0" });
  res.end();
}).listen(Number(port), "127.0.0.1");`;

/** `sendfile`: the content path of each file → its name inside the CDN folder. */
async function startLookupFloor(sendfile: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, ["-e", LOOKUP_FLOOR, JSON.stringify(sendfile), String(port)], { stdio: "ignore" });
  await waitFor(`http://127.0.0.1:${port}/`, child);
  return { dial: `127.0.0.1:${port}`, pid: child.pid!, close: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 5000).unref();
  });
}

/** CONNECTIONS keep-alive loops downloading `url` for SECONDS; bytes per second received. `ca`: for HTTPS. */
async function throughput(url: string, expectedSize: number, ca?: string): Promise<{ rate: number; bytes: number }> {
  const agent = new Agent({ connections: CONNECTIONS, pipelining: 1, ...(ca ? { connect: { ca } } : {}) });
  const deadline = Date.now() + SECONDS * 1000;
  let bytes = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < deadline) {
        const res = await request(url, { dispatcher: agent });
        if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
        let got = 0;
        for await (const chunk of res.body) got += (chunk as Buffer).length;
        if (got !== expectedSize) throw new Error(`${url} sent ${got} bytes, expected ${expectedSize}`);
        bytes += got;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  await agent.close();
  return { rate: bytes / seconds, bytes };
}

async function upload(baseUrl: string, cookie: string, name: string, size: number, onChunk?: () => void): Promise<{ id: string; url: string }> {
  const boundary = "benchboundary";
  const head = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}/api/cdn`, {
      method: "POST",
      headers: { cookie, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": head.length + size + tail.length },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (c) => (text += c)).on("end", () => (res.statusCode === 201 ? resolve(JSON.parse(text)) : reject(new Error(`upload: ${res.statusCode} ${text}`))));
    });
    req.on("error", reject);
    req.write(head);
    const chunk = Buffer.alloc(MiB, 0x61);
    let sent = 0;
    const more = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        onChunk?.();
        if (!req.write(piece)) return void req.once("drain", more);
      }
      req.end(tail);
    };
    more();
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}


interface Target {
  key: string;
  label: string;
  url: (file: string, content: string) => string;
  ca?: string;
  /** The processes that serve it: their CPU time per GiB sent is reported. */
  pids: number[];
}

async function main() {
  const binary = nginxBinary();
  if (!binary) throw new Error("nginx is not installed: apt-get install nginx-light");
  if (!hasCaddy()) throw new Error("caddy is not installed: apt-get install caddy");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-cdn-"));
  const nginxRoot = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-cdn-files-"));
  fs.chmodSync(nginxRoot, 0o755);
  const edge = await startEdgeCaddy();
  const running: { close(): Promise<void> }[] = [edge];
  try {
    const slipway = await startSlipwayProcess(dataDir, edge.env);
    running.push(slipway);
    const cookie = await signUp(slipway.url, `bench${Date.now()}`);
    // Idle: after boot and a first request, before anything is uploaded.
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssBytes(slipway.child.pid!);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(slipway.child.pid!))), 20);
    const uploadStart = Date.now();
    if (!PROBE) await upload(slipway.url, cookie, "one-gib.bin", UPLOAD_BYTES);
    const uploadSeconds = (Date.now() - uploadStart) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(slipway.child.pid!));
    console.log(`1 GiB upload: idle RSS ${mb(idle).replace("/s", "")}, peak ${mb(peak).replace("/s", "")} (+${mb(peak - idle).replace("/s", "")}) in ${uploadSeconds.toFixed(1)} s`);

    const files = [
      { name: "one-mib.bin", size: MiB },
      { name: "hundred-mib.bin", size: 100 * MiB },
    ].filter((file) => !ONLY_FILES || ONLY_FILES.includes(file.name));
    const contents: string[] = [];
    const sendfile: Record<string, string> = {};
    for (const file of files) {
      const stored = await upload(slipway.url, cookie, file.name, file.size);
      const redirect = await fetch(stored.url, { redirect: "manual" });
      contents.push(new URL(redirect.headers.get("location")!, slipway.url).pathname);
      const storageKey = (await storageKeyOf(dataDir, stored.id)) ?? "";
      sendfile[contents.at(-1)!] = `/${storageKey.slice("cdn/".length)}`;
      // nginx serves a copy of the same bytes from its own folder.
      fs.copyFileSync(path.join(dataDir, "storage", storageKey), path.join(nginxRoot, file.name));
      fs.chmodSync(path.join(nginxRoot, file.name), 0o644);
    }
    const nginx = await startNginxStatic(binary, nginxRoot);
    running.push(nginx);
    const floor = await startNodeFloor(nginxRoot);
    running.push(floor);
    const routes = await edge.cdnRoutes();
    const plain = await startPlainCaddy(routes.direct, routes.lookup);
    running.push(plain);
    const plainLookup = await startPlainCaddy(routes.lookup);
    running.push(plainLookup);
    const lookupFloor = await startLookupFloor(sendfile);
    running.push(lookupFloor);
    const floorRoute = JSON.parse(JSON.stringify(routes.lookup).replace(/"dial":"[^"]+"/, `"dial":"${lookupFloor.dial}"`)) as Record<string, unknown>;
    const plainFloor = await startPlainCaddy(floorRoute);
    running.push(plainFloor);
    const staticFloor = await startPlainCaddy({ handle: [{ handler: "file_server", root: nginxRoot }] });
    running.push(staticFloor);
    const allTargets: Target[] = [
      { key: "nginx", label: "nginx (`sendfile on`)", url: (name) => `${nginx.url}/${name}`, pids: [nginx.pid] },
      { key: "nginxTls", label: "nginx, HTTPS (same server, `ssl`: no sendfile)", url: (name) => `${nginx.tlsUrl}/${name}`, ca: nginx.ca, pids: [nginx.pid] },
      { key: "floor", label: "Node floor (bare `node:http` + `fs.createReadStream`)", url: (name) => `${floor.url}/${name}`, pids: [floor.pid] },
      { key: "slipway", label: "Slipway in-process (no edge: Node streams the file)", url: (_, content) => `${slipway.url}${content}`, pids: [slipway.child.pid!] },
      {
        key: "caddy",
        label: "**Caddy edge, HTTP** (the direct route: `file_server` sends the file's link, sendfile, no lookup)",
        url: (_, content) => `${plain.url}${content}`,
        pids: [plain.pid, slipway.child.pid!],
      },
      {
        key: "caddyStatic",
        label: "Caddy floor, HTTP (a bare `file_server` route: no matchers, no headers)",
        url: (name) => `${staticFloor.url}/${name}`,
        pids: [staticFloor.pid],
      },
      {
        key: "caddyLookup",
        label: "Caddy edge's lookup route, HTTP (ranges, validators, downloads: Slipway's lookup, then `file_server`)",
        url: (_, content) => `${plainLookup.url}${content}`,
        pids: [plainLookup.pid, slipway.child.pid!],
      },
      {
        key: "caddyFloor",
        label: "Lookup route floor, HTTP (the same route, its lookup answered by a bare `node:http` server)",
        url: (_, content) => `${plainFloor.url}${content}`,
        pids: [plainFloor.pid, lookupFloor.pid],
      },
      {
        key: "caddyTls",
        label: "Caddy edge, HTTPS (`EDGE=caddy` as deployed: TLS in Go, no sendfile)",
        url: (_, content) => `${edge.httpsUrl}${content}`,
        ca: await edge.ca(),
        pids: [edge.pid, slipway.child.pid!],
      },
    ];
    // nginx stays: every ratio is against it.
    const targets = allTargets.filter((t) => !ONLY || t.key === "nginx" || ONLY.includes(t.key));

    const sections: string[] = [];
    const loads: number[] = [];
    for (const [index, file] of files.entries()) {
      const speeds = new Map<string, number[]>(targets.map((t) => [t.key, []]));
      const ratios = new Map<string, number[]>(targets.map((t) => [t.key, []]));
      const cpu = new Map<string, number[]>(targets.map((t) => [t.key, []]));
      // Warm-up (page cache, JIT, TLS sessions), and a check that every server sends the same length.
      for (const target of targets) await throughput(target.url(file.name, contents[index]), file.size, target.ca);
      for (let round = 0; round < ROUNDS; round++) {
        const line: string[] = [];
        let nginxSpeed = 0;
        for (const target of targets) {
          const before = target.pids.map((pid) => cpuSeconds([pid]));
          const { rate: speed, bytes } = await throughput(target.url(file.name, contents[index]), file.size, target.ca);
          const perGiB = target.pids.map((pid, i) => (cpuSeconds([pid]) - before[i]) / (bytes / 1024 / MiB));
          cpu.get(target.key)!.push(perGiB.reduce((a, b) => a + b, 0));
          if (target.key === "nginx") nginxSpeed = speed;
          speeds.get(target.key)!.push(speed);
          ratios.get(target.key)!.push(speed / nginxSpeed);
          line.push(`${target.key} ${mb(speed)} (${(speed / nginxSpeed).toFixed(2)}, ${perGiB.map((c) => c.toFixed(2)).join(" + ")} CPU s/GiB)`);
        }
        loads.push(os.loadavg()[0]);
        console.log(`${file.name} round ${round + 1}: ${line.join(", ")}; load ${loads.at(-1)!.toFixed(1)}`);
      }
      if (PROBE) continue;
      const tls = speeds.get("caddyTls")!.map((speed, round) => speed / speeds.get("nginxTls")![round]);
      sections.push(
        `**${file.name} (${file.size / MiB} MiB)**`,
        "",
        "| server | MiB/s (median) | × nginx (median) | rounds' range | goal ≥ 0.8× | CPU s per GiB sent (median) | CPU per byte × nginx's |",
        "|---|---:|---:|---:|---|---:|---:|",
        ...targets.map((t) => {
          const r = ratios.get(t.key)!;
          const goal = t.key === "nginx" ? "" : median(r) >= 0.8 ? "✅" : "❌";
          return `| ${t.label} | ${mb(median(speeds.get(t.key)!))} | ${median(r).toFixed(2)} | ${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)} | ${goal} | ${median(cpu.get(t.key)!).toFixed(2)} | ${(median(cpu.get(t.key)!) / median(cpu.get("nginx")!)).toFixed(1)} |`;
        }),
        "",
        `Both over HTTPS, Caddy edge × nginx: ${median(tls).toFixed(2)} (median; rounds ${Math.min(...tls).toFixed(2)}–${Math.max(...tls).toFixed(2)}).`,
        "",
      );
    }
    if (PROBE) return;
    const body = report({ sections, idle, peak, uploadSeconds, loads, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, uploadBytes: UPLOAD_BYTES });
    console.log(`\n${body}`);
    writeSection(path.join(ROOT, "bench/RESULTS.md"), "cdn", body);
  } finally {
    for (const server of running.reverse()) await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(nginxRoot, { recursive: true, force: true });
  }
}

/** The storage key of a file, read from the bench server's SQLite database (the bench reads, never writes). */
async function storageKeyOf(dataDir: string, id: string): Promise<string | null> {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(path.join(dataDir, "slipway.db"), { readonly: true });
  try {
    const row = db.prepare(`SELECT storageKey FROM File WHERE id = ?`).get(id) as { storageKey: string } | undefined;
    return row?.storageKey ?? null;
  } finally {
    db.close();
  }
}

main().catch((error: unknown) => {
  console.error(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
