import { createClient, type Client as WsClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

function wsClient(headers: Record<string, string> = {}, connectionParams?: Record<string, unknown>): WsClient {
  const url = server.url.replace(/^http/, "ws") + "/graphql";
  class WithHeaders extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  return createClient({ url, webSocketImpl: WithHeaders, connectionParams, retryAttempts: 0, lazy: true });
}

/** Collects payloads of one subscription until `count` arrived (or it errors). */
function collect(client: WsClient, query: string, count: number, onEach?: (n: number) => void) {
  const results: any[] = [];
  return new Promise<any[]>((resolve, reject) => {
    const dispose = client.subscribe(
      { query },
      {
        next: (value) => {
          results.push(value);
          onEach?.(results.length);
          if (results.length === count) {
            dispose();
            resolve(results);
          }
        },
        error: reject,
        complete: () => resolve(results),
      },
    );
  });
}

const VIEWER = "subscription { viewer { user { name } quota { maxApps } } }";

describe("GraphQL subscriptions over graphql-ws on /graphql", () => {
  it("refuses an unauthenticated subscription with unauthenticated", async () => {
    const client = wsClient();
    const [result] = await collect(client, VIEWER, 1);
    expect(result.errors[0].extensions.code).toBe("unauthenticated");
    await client.dispose();
  });

  it("refuses a cookie-carrying handshake from another origin", async () => {
    const user = new Client(server.url);
    await user.signup();
    const client = wsClient({ cookie: user.cookie!, origin: "https://evil.example" });
    await expect(collect(client, VIEWER, 1)).rejects.toBeDefined();
    await client.dispose();
  });

  it("streams the viewer now and again when the account changes, with the session cookie", async () => {
    const user = new Client(server.url);
    const { name, user: created } = await user.signup();
    const client = wsClient({ cookie: user.cookie!, origin: server.url });
    const { db, services } = server.slipway.platform;
    const results = await collect(client, VIEWER, 2, async (n) => {
      if (n !== 1) return;
      await db.quota.update({ where: { userId: created.id }, data: { maxApps: 9 } });
      await services.accounts.changed(created.id);
    });
    expect(results.map((r) => r.data.viewer)).toEqual([
      { user: { name }, quota: { maxApps: 5 } },
      { user: { name }, quota: { maxApps: 9 } },
    ]);
    await client.dispose();
  });
});
