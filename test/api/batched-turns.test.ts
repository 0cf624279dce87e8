// Requests read in the same poll phase are started together in one callback of the check phase that follows
// (server/http/batch-turns.ts), so their answers are written back-to-back; HTTP_BATCH_TURNS=false handles
// each as it is read.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let batched: TestServer;
let unbatched: TestServer;
beforeAll(async () => {
  [batched, unbatched] = await Promise.all([startServer(), startServer({ HTTP_BATCH_TURNS: "false" })]);
});
afterAll(() => Promise.all([batched?.close(), unbatched?.close()]));

/** Two connections whose requests reach the server in one poll phase; what the server did, in order. */
async function twoRequestsAtOnce(server: TestServer): Promise<string[]> {
  const events: string[] = [];
  const onRequest = (request: { url?: string }, response: { on(event: "finish", listener: () => void): void }) => {
    const which = new URL(request.url!, server.url).searchParams.get("n");
    events.push(`read ${which}`);
    response.on("finish", () => events.push(`answered ${which}`));
  };
  const { port } = new URL(server.url);
  const accepted = acceptedConnections(server, 2);
  const sockets = await Promise.all([1, 2].map(() => connect(Number(port))));
  await accepted; // and reading: both connections' bytes are then read by the server's next poll
  server.slipway.app.server.prependListener("request", onRequest); // before Fastify handles it
  // The guard's first step, synchronous in the route's work: when each request's handling started.
  const { authenticate } = server.slipway.platform;
  const cached = authenticate.cached;
  authenticate.cached = (credentials) => {
    events.push("guarded");
    return cached(credentials);
  };
  try {
    const answers = sockets.map((socket) => answerOf(socket));
    // Written in one synchronous block: the server (same process) reads both in its next poll phase.
    sockets.forEach((socket, i) => socket.write(`GET /api/openapi.json?n=${i + 1} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    return events;
  } finally {
    authenticate.cached = cached;
    server.slipway.app.server.off("request", onRequest);
  }
}

function acceptedConnections(server: TestServer, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onConnection = () => {
      if (++seen < count) return;
      server.slipway.app.server.off("connection", onConnection);
      resolve();
    };
    server.slipway.app.server.on("connection", onConnection);
  });
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
}

function answerOf(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

describe("batched turns", () => {
  it("reads and starts every request that arrived together before answering any of them", async () => {
    await twoRequestsAtOnce(batched); // the first answer of a route may load what it needs
    expect(await twoRequestsAtOnce(batched)).toEqual(["read 1", "read 2", "guarded", "guarded", "answered 1", "answered 2"]);
  });

  it("with HTTP_BATCH_TURNS=false, answers each request as it is read", async () => {
    await twoRequestsAtOnce(unbatched);
    expect(await twoRequestsAtOnce(unbatched)).toEqual(["read 1", "guarded", "answered 1", "read 2", "guarded", "answered 2"]);
  });
});
