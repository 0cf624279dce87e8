// Log drains: an app printing 10,000 lines/s for 10 s, forwarded to a syslog receiver (a child process: TCP,
// octet-counted RFC 5424), against the same flood with no drain in the same run (the baseline), and with a drain
// whose receiver is down. Per round: lines the receiver got (goal: 0 lost while it is up), write → receiver latency,
// the server process's CPU time (the receiver and the app run in processes of their own), and the latency of
// `GET /api/me` probed 10 times a second meanwhile; CPU and latency against the no-drain round just before.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort } from "../../test/helpers/server.ts";
import { nodeApp, percentile, zipOf, type HostingClient } from "./client.ts";

const LINES_PER_SECOND = 10_000;
const SECONDS = 10;
const TOTAL = LINES_PER_SECOND * SECONDS;

/** 100 lines every 10 ms for SECONDS, each carrying its write time, from each /go. */
const FLOODER = `
let n = ${TOTAL};
function burst() {
  const now = Date.now();
  let chunk = "";
  for (let i = 0; i < ${LINES_PER_SECOND / 100} && n < ${TOTAL}; i++) chunk += "line " + n++ + " " + now + "\\n";
  process.stdout.write(chunk);
  if (n < ${TOTAL}) setTimeout(burst, 10);
}
require("http").createServer((q, s) => { if (q.url === "/go" && n === ${TOTAL}) { n = 0; burst(); } s.end("ok"); }).listen(process.env.PORT);`;

type Mode = "none" | "syslog" | "down";

interface Round {
  mode: Mode;
  received: number;
  latencies: number[];
  cpuMs: number;
  apiP50: number;
  apiP99: number;
  dropped: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /api/me every 100 ms until stopped: the latencies. */
function probeApi(client: HostingClient) {
  const latencies: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      await client.api("GET", "/api/me");
      latencies.push(performance.now() - started);
      await sleep(100);
    }
  })();
  return async () => {
    running = false;
    await done;
    return latencies;
  };
}

export async function benchDrains(client: HostingClient, rounds: number): Promise<string> {
  const slug = `bench-drains-${process.pid}`;
  await client.createApp(slug);
  const d = await client.upload(slug, await zipOf(nodeApp(FLOODER)));
  if ((await client.waitForSettled(slug, d.id)).status !== "LIVE") throw new Error("the flooder did not deploy");
  const receiver = fork(fileURLToPath(new URL("./syslog-receiver.mjs", import.meta.url)), [slug], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const next = (kind: string) => new Promise<any>((resolve) => receiver.on("message", function on(m: any) { if (m.kind === kind) { receiver.off("message", on); resolve(m); } }));
  const { port } = await next("listening");
  const deadPort = await freePort();
  const results: Round[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      for (const mode of ["none", "syslog", "none", "down"] as Mode[]) {
        const drain = mode === "none" ? null : await client.api("POST", `/api/apps/${slug}/drains`, { url: `syslog://127.0.0.1:${mode === "syslog" ? port : deadPort}` });
        await sleep(500);
        const stopProbe = probeApi(client);
        const cpu = process.cpuUsage();
        await client.get(slug, "/go");
        await sleep((SECONDS + 1) * 1000);
        const used = process.cpuUsage(cpu);
        const api = await stopProbe();
        let seen = 0;
        const latencies: number[] = [];
        if (mode === "syslog") {
          // The tail of the flood may still be on its way: up to 10 s more for the receiver to get it.
          for (const deadline = Date.now() + 10_000; seen < TOTAL && Date.now() < deadline; ) {
            await sleep(500);
            receiver.send("report");
            const part = await next("report");
            seen += part.seen;
            latencies.push(...part.latencies);
          }
        }
        let dropped = 0;
        if (drain) {
          if (mode === "down") await sleep(6000); // the counts reach the drain's row every 5 s
          dropped = (await client.api("GET", `/api/apps/${slug}/drains`)).find((v: { id: string }) => v.id === drain.id)?.dropped ?? 0;
          await client.api("DELETE", `/api/apps/${slug}/drains/${drain.id}`);
        }
        const round = { mode, received: seen, latencies, cpuMs: (used.user + used.system) / 1000, apiP50: percentile(api, 50), apiP99: percentile(api, 99), dropped };
        results.push(round);
        console.log(`  ${mode}: received ${seen}/${TOTAL}, CPU ${Math.round(round.cpuMs)} ms, GET /api/me p50 ${round.apiP50.toFixed(1)} ms p99 ${round.apiP99.toFixed(1)} ms, dropped ${dropped}`);
      }
    }
  } finally {
    receiver.kill();
  }
  return table(results, rounds);
}

function table(results: Round[], rounds: number): string {
  const median = (values: number[]) => percentile(values, 50);
  const ratios: Record<"syslog" | "down", number[]> = { syslog: [], down: [] };
  for (let i = 0; i < results.length; i += 2) ratios[results[i + 1].mode as "syslog" | "down"].push(results[i + 1].cpuMs / results[i].cpuMs);
  const byMode = (mode: Mode) => results.filter((r) => r.mode === mode);
  const lost = byMode("syslog").map((r) => TOTAL - r.received);
  const met = lost.every((l) => l === 0);
  const latencies = byMode("syslog").flatMap((r) => r.latencies);
  const row = (label: string, mode: Mode, lostCell: string, latencyCell: string, ratio: string, dropped: string) => {
    const rs = byMode(mode);
    return `| ${label} | ${lostCell} | ${latencyCell} | ${Math.round(median(rs.map((r) => r.cpuMs)))} | ${ratio} | ${median(rs.map((r) => r.apiP50)).toFixed(1)} / ${median(rs.map((r) => r.apiP99)).toFixed(1)} | ${dropped} |`;
  };
  return [
    `### Log drains: an app printing ${LINES_PER_SECOND.toLocaleString("en")} lines/s for ${SECONDS} s (${rounds} rounds, medians; each drain round against the no-drain round just before it)`,
    "",
    "| round | lines lost at the receiver (each round) | app write → receiver p50 / p99 ms | server CPU ms per round | × no drain | `GET /api/me` meanwhile p50 / p99 ms | dropped, counted (each round) |",
    "|---|---:|---:|---:|---:|---:|---:|",
    row("no drain (baseline)", "none", "—", "—", "1.00", "—"),
    row("`syslog://` drain, receiver up", "syslog", `${lost.join(", ")} ${met ? "✅" : "❌"}`, `${percentile(latencies, 50)} / ${percentile(latencies, 99)}`, median(ratios.syslog).toFixed(2), byMode("syslog").map((r) => r.dropped).join(", ")),
    row("`syslog://` drain, receiver down", "down", "—", "—", median(ratios.down).toFixed(2), byMode("down").map((r) => r.dropped).join(", ")),
    "",
    `The receiver is a child process (TCP, octet-counted frames); the app's lines go from its stdout through the log store (stamped, written in batches about every 25 ms, published) to the drain's queue (10,000 lines) and out in writes of up to 1,000 frames. CPU: user + system time of the server's process over the ${SECONDS + 1} s of each round (the app and the receiver run in processes of their own). Goal: ${TOTAL.toLocaleString("en")} lines and 0 lost while the receiver is up (**${met ? "met" : "missed"}**). With the receiver down, the drain retries with back-off and drops what its queue cannot hold, counting it; the API's latency shows whether the platform slowed.`,
    "",
  ].join("\n");
}
