// Worker thread of the logs bench: subscribes to an app's log lines over graphql-ws, away from the server's
// event loop, and reports which numbered lines arrived and how long after the app wrote them.
import { parentPort, workerData } from "node:worker_threads";
import { createClient } from "graphql-ws";
import WebSocket from "ws";

const { url, cookie, slug, total } = workerData;
class WithCookie extends WebSocket {
  constructor(address, protocols) {
    super(address, protocols, { headers: { cookie } });
  }
}
const client = createClient({ url, webSocketImpl: WithCookie, retryAttempts: 0 });
const seen = new Set();
const latencies = [];
let announced = false;
const finish = () => {
  parentPort.postMessage({ kind: "done", seen: seen.size, latencies });
  void client.dispose();
};
client.subscribe(
  { query: "subscription($slug: String!) { appLogs(slug: $slug, limit: 1) { line } }", variables: { slug } },
  {
    next: (value) => {
      if (!announced) parentPort.postMessage({ kind: "subscribed" });
      announced = true;
      if (value.errors) return parentPort.postMessage({ kind: "error", error: JSON.stringify(value.errors) });
      const now = Date.now();
      for (const { line } of value.data.appLogs) {
        const match = /^line (\d+) (\d+)$/.exec(line);
        if (!match) continue;
        seen.add(Number(match[1]));
        latencies.push(now - Number(match[2]));
      }
      if (seen.size >= total) finish();
    },
    error: (error) => parentPort.postMessage({ kind: "error", error: String(error) }),
    complete: finish,
  },
);
parentPort.on("message", (message) => message === "stop" && finish());
