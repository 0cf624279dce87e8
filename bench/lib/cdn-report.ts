// The text of bench/RESULTS.md's cdn section around the tables bench/cdn.ts measures.
import os from "node:os";
import { machine } from "./report.ts";

const MiB = 1024 * 1024;

export const mb = (bytesPerSecond: number) => `${Math.round(bytesPerSecond / MiB).toLocaleString("en")} MiB/s`;

interface Measured {
  sections: string[];
  idle: number;
  peak: number;
  uploadSeconds: number;
  /** The 1-minute load average after each round. */
  loads: number[];
  connections: number;
  seconds: number;
  rounds: number;
  uploadBytes: number;
}

export function report({ sections, idle, peak, uploadSeconds, loads, connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, uploadBytes: UPLOAD_BYTES }: Measured): string {
  const load = `${Math.min(...loads).toFixed(0)}–${Math.max(...loads).toFixed(0)}`;
  return [
    "## CDN: downloads vs nginx (`sendfile on`), and RSS while uploading 1 GiB",
    "",
    `- Run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`npm run bench:cdn\``,
    `- Machine: ${machine()}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(", ")} at the end of the run (other work shares the CPUs: the servers alternate within each round so all see the same contention, and the medians damp it)`,
    `- Slipway runs as its own process (\`node --import tsx server/main.ts\`, \`NODE_ENV=production\`, SQLite, local disk storage, \`LOG_LEVEL=silent\`, \`EDGE=caddy\`, \`EDGE_TLS=internal\`); ` +
      "nginx (Debian's) with `worker_processes 1`, `sendfile on`, `tcp_nopush on`, serving copies of the same files from a folder of its own; Caddy (Debian's 2.6) with `GOMAXPROCS=1`. " +
      `The load generator (this process, undici) keeps ${CONNECTIONS} keep-alive connections downloading one file for ${SECONDS} s, checking every body's length; ` +
      `the servers take turns, ${ROUNDS} rounds after a warm-up (medians; each ratio against nginx in its own round). All share the machine's CPUs.`,
    "- Slipway and Caddy are measured on the content path (`/cdn/:id/:type/:subtype/:sha256/:name`, where `GET /api/cdn/:id` redirects): the bytes, not the redirect. " +
      "The files are uploaded as `application/octet-stream`, shown inline: the kind the edge sends on its own.",
    "",
    ...sections,
    `**Reading it**: the 1-minute load average was ${load} on ${os.cpus().length} CPUs during the rounds (other work on the machine). Under such load a server's ` +
      "throughput swings between rounds with what the scheduler gives it, and nginx's single-threaded worker loses more of it than Caddy (Go's threads) or " +
      "Node (libuv's pool), so the ratios spread widely. The CPU each server spent per GiB it sent (user + system time of its processes, from `/proc`) " +
      "depends much less on the neighbours. On a quiet machine the load generator (one Node process) is what limits every server here, and a server " +
      "reaches the throughput that the CPU it leaves to the client allows: one costing about nginx's CPU per byte reaches about nginx's throughput, one " +
      "costing several times more falls behind (the Node floor and Slipway in-process copy every byte through user space).",
    "",
    "**Caddy edge** (`EDGE=caddy`, local storage, `EDGE_CDN_FILES=caddy`, the default; server/platform/edge/caddy-cdn.ts), in two routes. The direct route " +
      "sends a plain GET or HEAD of a file shown inline with no question to Slipway: the content path names the file's id, type and SHA-256, and Caddy sends " +
      "the file through the link named by exactly those (server/services/cdn-layout.ts), with Slipway's headers built from the path. Every other request " +
      "(ranges, validators, downloads, a path with no link) takes the lookup route: Slipway looks the file up (a deleted file is its 404, a 304 or 416 its " +
      "answer) and replies with the content's headers and the file's name inside the CDN folder instead of the bytes; Caddy's `file_server` then sends the file " +
      "(the X-Accel-Redirect pattern). The HTTP rows are second Caddies running the very routes Slipway loaded into the edge (read back from its admin API), " +
      "on plain HTTP like nginx: Go's `sendfile`; \"lookup route\" runs the lookup route alone. The HTTPS row is what browsers get from the edge as deployed: " +
      "TLS in Go, so the bytes are read and encrypted in user space (no sendfile, no kernel TLS), against nginx on plain HTTP.",
    "",
    "**Caddy floor**: a bare `file_server` route serving nginx's folder (no matcher, no header): the most Caddy reaches here. **Lookup route floor**: " +
      "the lookup route, its upstream a bare `node:http` server that answers each content path with the file's name at once (no lookup, no validators, " +
      "no existence check): the most a lookup, then `file_server` reaches with a Node upstream. Slipway answers the edge's lookups before Fastify " +
      "(server/http/cdn-edge.ts): one cached lookup, the validators and one synchronous `stat`, answered at once (no promise), with headers built once " +
      "per file when the request has no validator and no range.",
    "",
    "**Node floor**: a bare `node:http` server in its own process streaming the same file with `fs.createReadStream` (no framework, no lookup, " +
      "only type and length headers): the most any Node server copying the file through user space reaches here.",
    "",
    "How Slipway serves the content path itself (server/http/cdn.ts, without an edge or with `EDGE_CDN_FILES=slipway`): bodies up to 2 MiB are read whole " +
      "with one `read`, into one of a few reused 2 MiB buffers, and sent with one write; larger ones go out in 2 MiB chunks through two such buffers, one read " +
      "into while the other is written, each read into again once the kernel has taken its bytes. No chunk is a fresh allocation: fresh chunks are external " +
      "memory, which makes V8 collect the whole heap as they pile up. Node has no `sendfile`, so every byte crosses user space once. The lookup of a file by id is " +
      "cached in memory (rows never change), so a download costs no database query.",
    "",
    `Upload of a 1 GiB file (\`POST /api/cdn\`, multipart with Content-Length, streamed into local storage): Slipway's RSS was ${mb(idle).replace("/s", "")} idle and ` +
      `peaked at ${mb(peak).replace("/s", "")}, **+${mb(peak - idle).replace("/s", "")}** (goal < 50 MB above idle ${peak - idle < 50e6 ? "✅" : "❌"}), ` +
      `sampled every 20 ms from \`/proc/<pid>/status\`; the upload took ${uploadSeconds.toFixed(1)} s (${mb(UPLOAD_BYTES / uploadSeconds)}).`,
    "",
  ].join("\n");
}

