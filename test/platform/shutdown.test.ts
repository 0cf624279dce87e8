// A graceful stop (SIGTERM, or close()) is not held by clients: an open GraphQL WebSocket (a dashboard tab's
// subscriptions) is closed at once, and the stop completes, however long the client would keep it open.
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startServer } from "../helpers/server.ts";

function openWebSocket(base: string): Promise<WebSocket> {
  const ws = new WebSocket(`${base.replace("http", "ws")}/graphql`, "graphql-transport-ws", { headers: { origin: base } });
  // Initialised (graphql-ws closes a connection that never sends connection_init after 3 s by itself).
  return new Promise((resolve, reject) => {
    ws.once("open", () => ws.send(JSON.stringify({ type: "connection_init" })));
    ws.on("message", (data) => JSON.parse(String(data)).type === "connection_ack" && resolve(ws));
    ws.once("error", reject);
  });
}

describe("a graceful stop", () => {
  it("closes open WebSockets at once and completes", async () => {
    const server = await startServer();
    const ws = await openWebSocket(server.url);
    const wsClosed = new Promise<void>((resolve) => ws.once("close", () => resolve()));
    const started = Date.now();
    await server.close();
    await wsClosed;
    // Without closing them first, the server waited for the WebSocket's client to leave (here: never).
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);
});
