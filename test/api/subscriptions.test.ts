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

interface WsOptions {
  headers?: Record<string, string>;
  connectionParams?: Record<string, unknown>;
  /** Another server than the shared one. */
  base?: string;
  /** Connect at the first subscription (the default), or at once. */
  lazy?: boolean;
}

function wsClient({ headers = {}, connectionParams, base = server.url, lazy = true }: WsOptions = {}): WsClient {
  const url = base.replace(/^http/, "ws") + "/graphql";
  class WithHeaders extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  return createClient({ url, webSocketImpl: WithHeaders, connectionParams, retryAttempts: 0, lazy });
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
    const client = wsClient({ headers: { cookie: user.cookie!, origin: "https://evil.example" } });
    await expect(collect(client, VIEWER, 1)).rejects.toMatchObject({ code: 4403, reason: "Forbidden" });
    await client.dispose();
  });

  it("streams the viewer now and again when the account changes, with the session cookie", async () => {
    const user = new Client(server.url);
    const { name, user: created } = await user.signup();
    const client = wsClient({ headers: { cookie: user.cookie!, origin: server.url } });
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

describe("credentials that change while a connection is open", () => {
  it("ends a subscription with unauthenticated once its session is signed out, and refuses the connection's next operations", async () => {
    const user = new Client(server.url);
    const { name, user: created } = await user.signup();
    const client = wsClient({ headers: { cookie: user.cookie!, origin: server.url }, lazy: false });
    const results = await collect(client, VIEWER, 3, async (n) => {
      if (n !== 1) return;
      expect((await user.post("/api/auth/logout")).status).toBe(204);
      await server.slipway.platform.services.accounts.changed(created.id);
    });
    expect(results).toHaveLength(2);
    expect(results[0].data.viewer.user).toEqual({ name });
    expect(results[1].data).toBeUndefined();
    expect(results[1].errors[0].extensions.code).toBe("unauthenticated");
    // The same connection, still open: a new operation does not act as the signed-out session either.
    const [query] = await collect(client, "query { viewer { user { name } } }", 1);
    expect(query.errors[0].extensions.code).toBe("unauthenticated");
    await client.dispose();
  });

  it("applies an approval to the next event of a live subscription", async () => {
    const user = new Client(server.url);
    const { user: created } = await user.signup();
    const { db, services } = server.slipway.platform;
    await db.user.update({ where: { id: created.id }, data: { status: "PENDING" } });
    const client = wsClient({ headers: { cookie: user.cookie!, origin: server.url } });
    const results = await collect(client, "subscription { viewer { user { status } can { writeUser } } }", 2, async (n) => {
      if (n !== 1) return;
      await db.user.update({ where: { id: created.id }, data: { status: "ACTIVE" } });
      await services.accounts.changed(created.id);
    });
    expect(results.map((r) => r.data.viewer)).toEqual([
      { user: { status: "PENDING" }, can: { writeUser: false } },
      { user: { status: "ACTIVE" }, can: { writeUser: true } },
    ]);
    await client.dispose();
  });
});

/** POSTs the VIEWER subscription to /graphql as `user`, asking for `accept`. */
function subscribeOverHttp(user: Client, accept: string, signal?: AbortSignal) {
  return fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { cookie: user.cookie!, "content-type": "application/json", accept },
    body: JSON.stringify({ query: VIEWER }),
    signal,
  });
}

/** The payload of each `event: next` of an event stream, skipping keep-alive comments (":"), until it ends. */
async function* nextEvents(res: Response): AsyncGenerator<any> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    buffer += decoder.decode(chunk.value);
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.startsWith("event: next\ndata: ")) yield JSON.parse(block.slice("event: next\ndata: ".length));
    }
  }
}

describe("subscriptions over HTTP (server-sent events)", () => {
  it("streams the viewer as an event and keeps the response open for the next one", async () => {
    const user = new Client(server.url);
    const { name } = await user.signup();
    const abort = new AbortController();
    const res = await subscribeOverHttp(user, "text/event-stream", abort.signal);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const first = await nextEvents(res).next();
    if (first.done) throw new Error("the stream ended before an event");
    expect(first.value.data.viewer.user).toEqual({ name });
    abort.abort();
  });

  it("ends the stream with unauthenticated once its session is signed out", async () => {
    const user = new Client(server.url);
    const { user: created } = await user.signup();
    const events: any[] = [];
    for await (const event of nextEvents(await subscribeOverHttp(user, "text/event-stream"))) {
      events.push(event);
      if (events.length === 1) {
        await user.post("/api/auth/logout");
        await server.slipway.platform.services.accounts.changed(created.id);
      }
    }
    expect(events).toHaveLength(2);
    expect(events[1].errors[0].extensions.code).toBe("unauthenticated");
  });
});

describe("subscriptions over plain HTTP", () => {
  it("refuses a subscription that asks for a single JSON answer, without an empty body of some other type", async () => {
    const user = new Client(server.url);
    await user.signup();
    const res = await subscribeOverHttp(user, "application/json");
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get("content-type")).not.toBe("application/octet-stream");
  });
});

describe("bad documents over graphql-ws", () => {
  it("answers a syntax error with an invalid_request error on the operation and keeps the connection", async () => {
    const client = wsClient({ lazy: false });
    const closes: number[] = [];
    client.on("closed", (event) => void closes.push((event as { code: number }).code));
    // Before: the socket closed with 4500 and the subscription saw a CloseEvent.
    await expect(collect(client, "subscription {", 1)).rejects.toMatchObject([{ message: expect.stringMatching(/^Syntax Error/), extensions: { code: "invalid_request" } }]);
    expect(closes).toEqual([]);
    await client.dispose();
  });

  it("answers a document nested 100,000 levels deep with invalid_request", async () => {
    const depth = 100_000;
    const client = wsClient();
    const refusal = collect(client, `subscription {${"a{".repeat(depth)}a${"}".repeat(depth)}}`, 1);
    await expect(refusal).rejects.toMatchObject([{ extensions: { code: "invalid_request" } }]);
    await client.dispose();
  });

  it("answers validation errors with invalid_request", async () => {
    const client = wsClient();
    await expect(collect(client, "subscription { nope }", 1)).rejects.toMatchObject([{ extensions: { code: "invalid_request" } }]);
    await client.dispose();
  });
});

describe("rate limit over graphql-ws", () => {
  it("counts the connection and each subscribe; past the limit answers rate_limited, then refuses connections", async () => {
    const limited = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "3" });
    try {
      const user = new Client(limited.url);
      await user.signup(); // counted on the address, not the user
      const headers = { cookie: user.cookie!, origin: limited.url };
      const client = wsClient({ base: limited.url, headers });
      // A live subscription holds the connection open: connection + subscribe = 2.
      const live = await new Promise<any>((resolve, reject) => client.subscribe({ query: VIEWER }, { next: resolve, error: reject, complete: () => {} }));
      const [third] = await collect(client, VIEWER, 1);
      expect(third.data.viewer).toEqual(live.data.viewer);
      const refused = collect(client, VIEWER, 1);
      await expect(refused).rejects.toMatchObject([{ extensions: { code: "rate_limited", details: { retryAfter: expect.any(Number) } } }]);
      await client.dispose();
      const late = wsClient({ base: limited.url, headers });
      await expect(collect(late, VIEWER, 1)).rejects.toMatchObject({ code: 4429, reason: expect.stringMatching(/^rate_limited: Too many requests/) });
      await late.dispose();
      // One budget with HTTP: the user is past the limit there too.
      expect((await user.get("/api/me")).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
