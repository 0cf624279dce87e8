// What one GraphQL operation may ask for (aliases, depth, cost, page sizes), over HTTP and WebSocket, and its
// cost charged against the caller's rate limit.
import fs from "node:fs";
import path from "node:path";
import { Kind, parse, validate, type DefinitionNode } from "graphql";
import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { limitRules, operationCost, OPERATION_LIMITS } from "../../server/graphql/limits.ts";
import { schema } from "../../server/graphql/schema/index.ts";
import { compileRoutes } from "../../server/rest/adapter.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "1000" });
});
afterAll(() => server?.close());

const aliases = (n: number, field: string) => Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(" ");

async function signedIn(requestsPerMinute = 1000) {
  const client = new Client(server.url);
  const { user } = await client.signup();
  await server.slipway.platform.db.quota.update({ where: { userId: user.id }, data: { requestsPerMinute } });
  return client;
}

describe("operation limits over HTTP", () => {
  it("refuses 332 aliases of authorizedApps (the reported request) before running any of them", async () => {
    const client = await signedIn();
    const res = await client.graphql(`{ ${aliases(332, "authorizedApps { clientId }")} }`);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toEqual([{ message: "Aliases limit of 15 exceeded, found 332.", extensions: { code: "invalid_request" } }]);
  });

  it("takes 15 aliases, not 16 (__typename does not count)", async () => {
    const client = await signedIn();
    expect((await client.graphql(`{ ${aliases(15, "me { id }")} }`)).body.errors).toBeUndefined();
    const over = await client.graphql(`{ ${aliases(16, "me { id }")} ${aliases(20, "__typename").replaceAll(/\ba(\d)/g, "t$1")} }`);
    expect(over.body.errors?.[0]).toMatchObject({ message: "Aliases limit of 15 exceeded, found 16.", extensions: { code: "invalid_request" } });
  });

  it("refuses a selection deeper than 10 levels, fragments included", async () => {
    const client = await signedIn();
    // Slipway's own types nest only a few levels; introspection's __Type nests without end.
    const type = (depth: number) => `{ __type(name: "Query") { ${"ofType { ".repeat(depth - 2)}name${" }".repeat(depth - 2)} } }`;
    expect((await client.graphql(type(10))).body.errors).toBeUndefined();
    const deep = await client.graphql(type(11));
    expect(deep.body.errors?.[0]).toMatchObject({ message: "Query depth limit of 10 exceeded, found 11.", extensions: { code: "invalid_request" } });
    const viaFragment = await client.graphql(`{ __type(name: "Query") { ...F } } fragment F on __Type { ${"ofType { ".repeat(9)}name${" }".repeat(9)} }`);
    expect(viaFragment.body.errors?.[0].message).toMatch(/^Query depth limit of 10 exceeded, found \d+\.$/);
  });

  it("refuses an operation costing more than 5,000, saying what it costs", async () => {
    const client = await signedIn();
    const fields = "clientId name description scopes permissions authorizedAt";
    const query = `{ ${aliases(9, `authorizedApps(first: 100) { ${fields} }`)} }`; // 9 × (10 + 100 × 6)
    const res = await client.graphql(query);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0]).toMatchObject({
      message: "This operation costs 5490, more than the limit of 5000 per operation. Ask for fewer items (first) or fewer fields.",
      extensions: { code: "invalid_request" },
    });
  });

  it("bounds every page: first from 1 to 100, default 50", async () => {
    const client = await signedIn();
    for (const first of [0, 101]) {
      const res = await client.graphql(`{ oauthClients(first: ${first}) { clientId } }`);
      expect(res.body.errors?.[0]).toMatchObject({ message: `Ask for 1 to 100 items at a time (first: ${first}).`, extensions: { code: "invalid_request" } });
      const apps = await client.graphql(`{ authorizedApps(first: ${first}) { clientId } }`);
      expect(apps.body.errors?.[0].extensions?.code).toBe("invalid_request");
    }
    const type = schema.getQueryType()!.getFields();
    // Bounded otherwise: log lines page with `after` and `limit` (1–1000, the contract's), an app has at most 200 env vars,
    // an app has at most 20 custom domains, there are two database types, and appRuns (REST's list of an app's runs)
    // answers a fixed page of 50 with `after` (GraphQL clients page App.runs with first), an app has at most 50
    // cron jobs (app.json's list is refused past that), its process types run within maxInstances, an account has at
    // most 20 webhooks, there are six webhook events, and an app has at most 5 log drains.
    const boundedOtherwise = new Set(["appLogs", "appEnv", "appDomains", "databaseTypes", "appRuns", "appCronJobs", "appProcesses", "webhooks", "webhookEvents", "appDrains"]);
    for (const [name, field] of Object.entries(type)) {
      if (!String(field.type).startsWith("[") || boundedOtherwise.has(name)) continue;
      expect(field.args.find((a) => a.name === "first")?.defaultValue, name).toBe(50);
    }
  });

  it("pages through a user's OAuth clients with first and after; REST still answers a plain array", async () => {
    const client = await signedIn();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await client.post("/api/oauth/clients", { name: `app ${i}`, redirectUris: ["https://example.com/cb"] });
      ids.unshift(res.body.clientId);
    }
    const page = (after?: string) =>
      client.graphql<{ oauthClients: { clientId: string }[] }>(`query($after: String) { oauthClients(first: 2, after: $after) { clientId } }`, { after });
    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 3; i++) {
      const items = (await page(after)).body.data!.oauthClients.map((c) => c.clientId);
      seen.push(...items);
      after = items.at(-1);
    }
    expect(seen).toEqual(ids);
    const rest = await client.get("/api/oauth/clients");
    expect(Array.isArray(rest.body)).toBe(true);
    expect(rest.body.map((c: { clientId: string }) => c.clientId)).toEqual(ids);
  });

  it("charges an operation's cost against the rate limit: ceil(cost / 1000) requests, once, with a clear 429", async () => {
    const client = await signedIn(9);
    const fields = "clientId name description scopes permissions authorizedAt";
    const costly = `{ ${aliases(4, `authorizedApps(first: 100) { ${fields} }`)} }`; // 4 × 610 = 2440: 3 requests
    const first = await client.graphql(costly);
    expect(first.body.errors).toBeUndefined();
    expect(first.headers.get("ratelimit-remaining")).toBe("6");
    const second = await client.graphql(costly);
    expect(second.headers.get("ratelimit-remaining")).toBe("3");
    expect((await client.get("/api/me")).headers.get("ratelimit-remaining")).toBe("2"); // REST: one request
    const refused = await client.graphql(costly); // counted 1 at the door (1 left), then needs 2 more: refused
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body.errors?.[0].extensions?.code).toBe("rate_limited");
    expect(refused.body.errors?.[0].message).toMatch(/^Too many requests: this operation costs 2440 and so counts as 3 requests \(one per 1000 of cost\) against your limit of 9 per minute\. Try again in \d+ seconds/);
    expect(refused.body.data).toBeUndefined();
    // The refused cost was not charged: one plain request still fits.
    expect((await client.get("/api/me")).status).toBe(200);
    expect((await client.get("/api/me")).status).toBe(429);
  });
});

describe("operation limits over WebSocket", () => {
  it("refuses too many aliases and too costly operations, and charges the cost, like HTTP", async () => {
    const http = await signedIn(10);
    const headers = { cookie: http.cookie!, origin: server.url };
    const WithHeaders = class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers });
      }
    };
    // One connection throughout (a lazy client would open one per operation, each counted).
    const client = createClient({ url: `${server.url.replace("http", "ws")}/graphql`, webSocketImpl: WithHeaders, retryAttempts: 0, lazy: false });
    const run = (query: string) =>
      new Promise<{ data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] }>((resolve, reject) => {
        let result: unknown;
        client.subscribe({ query }, { next: (r) => (result = r), error: reject, complete: () => resolve(result as never) });
      });
    try {
      const tooMany = await run(`{ ${aliases(16, "me { id }")} }`).catch((errors) => ({ errors }));
      expect(tooMany.errors?.[0]).toMatchObject({ message: "Aliases limit of 15 exceeded, found 16.", extensions: { code: "invalid_request" } });
      const fields = "clientId name description scopes permissions authorizedAt";
      const tooCostly = await run(`{ ${aliases(9, `authorizedApps(first: 100) { ${fields} }`)} }`);
      expect(tooCostly.errors?.[0].message).toMatch(/^This operation costs 5490, more than the limit of 5000/);
      // Counted: the subscribe 1, then 2 for its cost (3 requests' worth), and the REST request 1.
      const before = Number((await http.get("/api/me")).headers.get("ratelimit-remaining"));
      const costly = await run(`{ ${aliases(4, `authorizedApps(first: 100) { ${fields} }`)} }`);
      expect(costly.errors).toBeUndefined();
      expect(Number((await http.get("/api/me")).headers.get("ratelimit-remaining"))).toBe(before - 4);
      const refused = await run(`{ ${aliases(4, `authorizedApps(first: 100) { ${fields} }`)} }`);
      expect(refused.errors?.[0].extensions?.code).toBe("rate_limited");
    } finally {
      await client.dispose();
    }
  });
});

describe("operations fixed in code", () => {
  it("every REST route and every dashboard operation is within the limits and counts as one request", () => {
    expect(() => compileRoutes(schema)).not.toThrow();
    const sources = fs
      .readdirSync("web/src", { recursive: true, encoding: "utf8" })
      .filter((f) => /\.(ts|svelte)$/.test(f) && !f.startsWith(path.join("lib", "gql")))
      .map((f) => path.join("web/src", f));
    const definitions: DefinitionNode[] = sources.flatMap((file) =>
      [...fs.readFileSync(file, "utf8").matchAll(/graphql\(`([\s\S]*?)`\)/g)].flatMap((m) => parse(m[1]).definitions),
    );
    const fragments = definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
    const operations = definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    expect(operations.length).toBeGreaterThan(5);
    for (const operation of operations) {
      const document = { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] } as const;
      expect(validate(schema, document, limitRules), operation.name?.value).toEqual([]);
      const cost = operationCost({ schema, document: { ...document, definitions: [{ ...operation, variableDefinitions: [] }, ...fragments] } });
      expect(cost, operation.name?.value).toBeLessThanOrEqual(OPERATION_LIMITS.costPerRequest);
    }
  });
});
