// `npm run bench:cdn`: CDN downloads (1 MiB and 100 MiB files) through Slipway's local content path against
// nginx (`sendfile on`) serving the same files in the same run, and the platform's peak RSS while a 1 GiB file
// is uploaded. Slipway runs as its own process (`node --import tsx server/main.ts`), so its RSS is its
// own; the load generator runs here. Writes the "cdn" section of bench/RESULTS.md.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { nginxBinary } from "./lib/proxies.ts";
import { machine, writeSection } from "./lib/report.ts";
import { signUp } from "./lib/slipway.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MiB = 1024 * 1024;
const CONNECTIONS = 4;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const UPLOAD_BYTES = 1024 * MiB;

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

async function startSlipwayProcess(dataDir: string) {
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
    async close() {
      await stop(child);
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 5000).unref();
  });
}

/** CONNECTIONS keep-alive loops downloading `url` for SECONDS; bytes per second received. */
async function throughput(url: string, expectedSize: number): Promise<number> {
  const agent = new Agent({ connections: CONNECTIONS, pipelining: 1 });
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
  return bytes / seconds;
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

const mb = (bytesPerSecond: number) => `${Math.round(bytesPerSecond / MiB).toLocaleString("en")} MiB/s`;

async function main() {
  const binary = nginxBinary();
  if (!binary) throw new Error("nginx is not installed: apt-get install nginx-light");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-cdn-"));
  const nginxRoot = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-bench-cdn-files-"));
  fs.chmodSync(nginxRoot, 0o755);
  const slipway = await startSlipwayProcess(dataDir);
  let nginx: Awaited<ReturnType<typeof startNginxStatic>> | null = null;
  try {
    const cookie = await signUp(slipway.url, `bench${Date.now()}`);
    // Idle: after boot and a first request, before anything is uploaded.
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssBytes(slipway.child.pid!);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(slipway.child.pid!))), 20);
    const uploadStart = Date.now();
    const big = await upload(slipway.url, cookie, "one-gib.bin", UPLOAD_BYTES);
    const uploadSeconds = (Date.now() - uploadStart) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(slipway.child.pid!));
    console.log(`1 GiB upload: idle RSS ${mb(idle).replace("/s", "")}, peak ${mb(peak).replace("/s", "")} (+${mb(peak - idle).replace("/s", "")}) in ${uploadSeconds.toFixed(1)} s`);
    void big;

    const files = [
      { name: "one-mib.bin", size: MiB },
      { name: "hundred-mib.bin", size: 100 * MiB },
    ];
    const rows: { name: string; size: number; slipway: number; nginx: number; ratio: number; low: number; high: number }[] = [];
    const targets = [];
    for (const file of files) {
      const stored = await upload(slipway.url, cookie, file.name, file.size);
      const redirect = await fetch(stored.url, { redirect: "manual" });
      const content = new URL(redirect.headers.get("location")!, slipway.url).toString();
      // nginx serves a copy of the same bytes from its own folder.
      fs.copyFileSync(path.join(dataDir, "storage", (await storageKeyOf(dataDir, stored.id)) ?? ""), path.join(nginxRoot, file.name));
      fs.chmodSync(path.join(nginxRoot, file.name), 0o644);
      targets.push({ file, content });
    }
    nginx = await startNginxStatic(binary, nginxRoot);
    for (const { file, content } of targets) {
      const ours: number[] = [];
      const theirs: number[] = [];
      const ratios: number[] = [];
      await throughput(content, file.size); // warm-up (page cache, JIT)
      for (let round = 0; round < ROUNDS; round++) {
        const n = await throughput(`${nginx.url}/${file.name}`, file.size);
        const s = await throughput(content, file.size);
        theirs.push(n);
        ours.push(s);
        ratios.push(s / n);
        console.log(`${file.name} round ${round + 1}: slipway ${mb(s)}, nginx ${mb(n)}, ratio ${(s / n).toFixed(2)}`);
      }
      rows.push({ name: file.name, size: file.size, slipway: median(ours), nginx: median(theirs), ratio: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios) });
    }

    const body = [
      "## CDN: downloads vs nginx (`sendfile on`), and RSS while uploading 1 GiB",
      "",
      `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:cdn\``,
      `- Machine: ${machine()}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(", ")} at the end of the run (other work shares the CPUs: the rounds alternate so both sides see the same contention, and the medians damp it)`,
      `- Slipway runs as its own process (\`node --import tsx server/main.ts\`, \`NODE_ENV=production\`, SQLite, local disk storage, \`LOG_LEVEL=silent\`); ` +
        "nginx (Debian's) with `worker_processes 1`, `sendfile on`, `tcp_nopush on`, serving copies of the same files from a folder of its own. " +
        `The load generator (this process, undici) keeps ${CONNECTIONS} keep-alive connections downloading one file for ${SECONDS} s, checking every body's length; ` +
        `nginx and Slipway alternate, ${ROUNDS} rounds after a warm-up (medians; each ratio against nginx in its own round). All three share the machine's CPUs.`,
      "- Slipway is measured on its content path (`/cdn/:id/:name`, where `GET /api/cdn/:id` redirects): the bytes, not the redirect.",
      "",
      "| file | Slipway | nginx | × nginx (median) | rounds' range | goal |",
      "|---|---:|---:|---:|---:|---|",
      ...rows.map(
        (r) =>
          `| ${r.name} (${r.size / MiB} MiB) | ${mb(r.slipway)} | ${mb(r.nginx)} | ${r.ratio.toFixed(2)} | ${r.low.toFixed(2)}–${r.high.toFixed(2)} | ≥ 0.8× ${r.ratio >= 0.8 ? "✅" : "❌"} |`,
      ),
      "",
      "How the content path is served (server/http/cdn.ts): bodies up to 2 MiB are read whole with one `read` and sent with one write; larger ones stream " +
        "from the file in 64 KiB chunks (Node's default). 1 MiB chunks measured slower on the 100 MiB file (about 0.3–0.5× nginx against 0.8–1.1× " +
        "for 64 KiB, same machine, same load), as each chunk is a fresh allocation outside Node's buffer pool. Node has no `sendfile`, so every byte " +
        "crosses user space once, where nginx hands the file to the kernel: on a busy machine, where the copy competes for the CPUs, that gap widens, " +
        "which is why the rounds' ratios spread. The lookup of a file by id is cached in memory (rows never change), so a download costs no database query.",
      "",
      `Upload of a 1 GiB file (\`POST /api/cdn\`, multipart with Content-Length, streamed into local storage): Slipway's RSS was ${mb(idle).replace("/s", "")} idle and ` +
        `peaked at ${mb(peak).replace("/s", "")}, **+${mb(peak - idle).replace("/s", "")}** (goal < 50 MB above idle ${peak - idle < 50e6 ? "✅" : "❌"}), ` +
        `sampled every 20 ms from \`/proc/<pid>/status\`; the upload took ${uploadSeconds.toFixed(1)} s (${mb(UPLOAD_BYTES / uploadSeconds)}).`,
      "",
    ].join("\n");
    console.log(`\n${body}`);
    writeSection(path.join(ROOT, "bench/RESULTS.md"), "cdn", body);
  } finally {
    await nginx?.close();
    await slipway.close();
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
