// Logs end to end: thousands of lines written at once come back exactly once and in order, by polling with
// `after` and through the live subscription (history first, then live, no gap, no duplicate); long lines are
// cut, never dropped.
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client } from "../helpers/client.ts";
import { deploy, waitFor, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: Client;
let counter = 0;
const newSlug = () => `logs-${process.pid}-${++counter}`;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

const LINES = 5000;
/** Prints LINES numbered lines in one synchronous burst, then one 40 KiB line, then serves. */
const BURST_APP = `
for (let i = 0; i < ${LINES}; i++) console.log("line " + i);
console.log("x".repeat(40 * 1024));
require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);
`;
const nodeApp = (js: string) => ({ "package.json": JSON.stringify({ name: "t", version: "1.0.0" }), "server.js": js });

async function pollAll(slug: string, until: (lines: { line: string }[]) => boolean) {
  const seen: { timestamp: string; line: string }[] = [];
  let after = "";
  await waitFor(async () => {
    for (;;) {
      const res = await owner.get(`/api/apps/${slug}/logs?limit=1000${after ? `&after=${after}` : "&after=1970-01-01T00:00:00.000Z"}`);
      expect(res.status).toBe(200);
      if (res.body.length === 0) break;
      seen.push(...res.body);
      after = res.body[res.body.length - 1].timestamp;
    }
    return until(seen);
  }, 30_000, "every log line");
  return seen;
}

describe("runtime logs", () => {
  it("returns every line of a burst exactly once, in order, by polling with after; cuts a long line", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    expect((await deploy(owner, slug, await zipFolder(null, nodeApp(BURST_APP)))).status).toBe("LIVE");
    const seen = await pollAll(slug, (lines) => lines.some((l) => l.line.startsWith("xxxx")));
    const numbered = seen.filter((l) => l.line.startsWith("line ")).map((l) => l.line);
    expect(numbered).toEqual(Array.from({ length: LINES }, (_, i) => `line ${i}`));
    const timestamps = seen.map((l) => l.timestamp);
    expect(new Set(timestamps).size).toBe(timestamps.length);
    expect([...timestamps].sort()).toEqual(timestamps);
    const long = seen.find((l) => l.line.startsWith("xxxx"))!.line;
    expect(long.length).toBeLessThan(17 * 1024);
    expect(long).toMatch(/^x{16384} … \[line cut: 24576 more bytes\]$/);
    // Without after: the newest `limit` lines, oldest first.
    const latest = await owner.get(`/api/apps/${slug}/logs?limit=3`);
    expect(latest.body.map((l: { timestamp: string }) => l.timestamp)).toEqual(timestamps.slice(-3));
    expect((await owner.get(`/api/apps/${slug}/logs?limit=5000`)).status).toBe(400);
    expect((await owner.get(`/api/apps/${slug}/logs?after=yesterday`)).status).toBe(400);
  });

  it("streams history then live lines over graphql-ws with no gap and no duplicate", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    const app = `
      let n = 0;
      setInterval(() => { for (let i = 0; i < 50; i++) console.log("tick " + n++); }, 20);
      require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`;
    await deploy(owner, slug, await zipFolder(null, nodeApp(app)));
    await waitFor(async () => (await owner.get(`/api/apps/${slug}/logs?limit=1000`)).body.length > 300, 20_000, "history");
    class WithCookie extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { cookie: owner.cookie! } });
      }
    }
    const ws = createClient({ url: server.url.replace(/^http/, "ws") + "/graphql", webSocketImpl: WithCookie, retryAttempts: 0 });
    const received: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const dispose = ws.subscribe(
        { query: `subscription($slug: String!) { appLogs(slug: $slug, limit: 100) { timestamp line } }`, variables: { slug } },
        {
          next: (value) => {
            if (value.errors) return reject(new Error(JSON.stringify(value.errors)));
            for (const l of (value.data as { appLogs: { line: string }[] }).appLogs) received.push(l.line);
            if (received.length >= 2000) {
              dispose();
              resolve();
            }
          },
          error: reject,
          complete: resolve,
        },
      );
    });
    await ws.dispose();
    const numbers = received.filter((l) => l.startsWith("tick ")).map((l) => Number(l.slice(5)));
    expect(numbers.length).toBeGreaterThanOrEqual(1900);
    for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1] + 1);
  });

  it("keeps only the newest LOG_RETENTION_LINES lines of an app (pruned as lines arrive)", async () => {
    const small = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", LOG_RETENTION_LINES: "100" });
    try {
      const user = new Client(small.url);
      await user.signup();
      const slug = newSlug();
      await user.post("/api/apps", { slug });
      const app = `for (let i = 0; i < 1000; i++) console.log("n " + i);
        require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`;
      expect((await deploy(user, slug, await zipFolder(null, nodeApp(app)))).status).toBe("LIVE");
      const kept = await waitFor(async () => {
        const res = await user.get(`/api/apps/${slug}/logs?limit=1000&after=1970-01-01T00:00:00.000Z`);
        return res.body.some((l: { line: string }) => l.line === "n 999") && res.body.length <= 200 ? res.body : null;
      }, 20_000, "the newest lines only");
      const numbers = kept.map((l: { line: string }) => Number(l.line.slice(2)));
      expect(Math.min(...numbers)).toBeGreaterThanOrEqual(800);
      expect(numbers.at(-1)).toBe(999);
    } finally {
      await small.close();
    }
  });

  it("streams log lines over server-sent events too", async () => {
    const slug = newSlug();
    await owner.post("/api/apps", { slug });
    await deploy(owner, slug, await zipFolder(null, nodeApp(`console.log("hello over sse"); require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`)));
    await waitFor(async () => (await owner.get(`/api/apps/${slug}/logs`)).body.length > 0, 10_000, "a line");
    const abort = new AbortController();
    const res = await fetch(`${server.url}/graphql`, {
      method: "POST",
      signal: abort.signal,
      headers: { cookie: owner.cookie!, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: `subscription($slug: String!) { appLogs(slug: $slug) { line } }`, variables: { slug } }),
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("hello over sse")) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    expect(text).toMatch(/data: \{"data":\{"appLogs":\[\{"line":"hello over sse"\}\]\}\}/);
  });
});
