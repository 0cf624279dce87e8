// An app printing 10,000 lines a second for 10 s, watched through the GraphQL subscription: lines lost, the
// latency from the app's write to the subscriber, and the API's p99 meanwhile.
import autocannon from "autocannon";
import { Worker } from "node:worker_threads";
import { nodeApp, percentile, zipOf, type HostingClient } from "./client.ts";

const LINES_PER_SECOND = 10_000;
const SECONDS = 10;
const TOTAL = LINES_PER_SECOND * SECONDS;

/** Says "ready" (the subscription's history), then writes 100 lines every 10 ms, each carrying its write time, once /go is requested. */
const FLOODER = `
let n = 0;
function burst() {
  const now = Date.now();
  let chunk = "";
  for (let i = 0; i < ${LINES_PER_SECOND / 100} && n < ${TOTAL}; i++) chunk += "line " + n++ + " " + now + "\\n";
  process.stdout.write(chunk);
  if (n < ${TOTAL}) setTimeout(burst, 10);
}
require("http").createServer((q, s) => { if (q.url === "/go" && n === 0) burst(); s.end("ok"); }).listen(process.env.PORT, () => console.log("ready"));`;

export async function benchLogs(client: HostingClient): Promise<string> {
  const slug = `bench-logs-${process.pid}`;
  await client.createApp(slug);
  const d = await client.upload(slug, await zipOf(nodeApp(FLOODER)));
  if ((await client.waitForSettled(slug, d.id)).status !== "LIVE") throw new Error("the flooder did not deploy");

  // The subscriber and the API's load run in worker threads, so that only the server works on this thread.
  const subscriber = new Worker(new URL("./log-subscriber.mjs", import.meta.url), {
    workerData: { url: client.base.replace(/^http/, "ws") + "/graphql", cookie: client.cookie, slug, total: TOTAL },
  });
  const messages = (kind: string) =>
    new Promise<any>((resolve, reject) => {
      const onMessage = (message: any) => {
        if (message.kind === "error") reject(new Error(message.error));
        else if (message.kind === kind) {
          subscriber.off("message", onMessage);
          resolve(message);
        }
      };
      subscriber.on("message", onMessage);
    });
  await messages("subscribed");
  const api = autocannon({ url: `${client.base}/api/me`, headers: { cookie: client.cookie }, connections: 2, duration: SECONDS + 2, workers: 1 });
  await client.get(slug, "/go");
  const done = messages("done");
  const timeout = setTimeout(() => subscriber.postMessage("stop"), (SECONDS + 20) * 1000);
  const { seen, latencies } = (await done) as { seen: number; latencies: number[] };
  clearTimeout(timeout);
  const apiResult = await api;
  await subscriber.terminate();
  const lost = TOTAL - seen;
  const p99 = percentile(latencies, 99);
  console.log(`  received ${seen}/${TOTAL}, p50 ${percentile(latencies, 50)} ms, p99 ${p99} ms; API p99 ${apiResult.latency.p99} ms`);
  return [
    `### Logs: an app printing ${LINES_PER_SECOND.toLocaleString("en")} lines/s for ${SECONDS} s, watched live`,
    "",
    "| lines written | lines lost | line → subscriber p50 ms | p99 ms | `GET /api/me` meanwhile: req/s | p99 ms |",
    "|---:|---:|---:|---:|---:|---:|",
    `| ${TOTAL.toLocaleString("en")} | ${lost} | ${percentile(latencies, 50)} | ${p99} | ${Math.round(apiResult.requests.average)} | ${apiResult.latency.p99} |`,
    "",
    `Lines are stamped as they arrive, written in batches (prepared multi-row inserts in one transaction, about every 25 ms) and published after each commit; the subscriber (a worker thread) gets them in batches over graphql-ws, while 2 connections (another worker) request \`GET /api/me\`. Goals: 0 lines lost (**${lost === 0 ? "met" : "missed"}**), p99 under 100 ms (**${p99 < 100 ? "met" : "missed"}**: ${p99} ms).`,
    "",
  ].join("\n");
}
