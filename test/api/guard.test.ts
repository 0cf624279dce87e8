// The guard in front of /api, /graphql and /oauth: it must hold however the path is spelled, and hostile
// input must end in a 400, never a 500.
import { createClient } from "graphql-ws";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

describe("percent-encoded paths reach the same guard as their decoded form", () => {
  it("authenticates and counts GET /%61pi/me exactly like /api/me", async () => {
    const client = new Client(server.url);
    await client.signup();
    const plain = await client.get("/api/me");
    const encoded = await client.get("/%61pi/me");
    expect(encoded.status).toBe(200);
    expect(encoded.body).toEqual(plain.body);
    expect(encoded.headers.get("ratelimit-limit")).toBe("120");
    expect(Number(encoded.headers.get("ratelimit-remaining"))).toBe(Number(plain.headers.get("ratelimit-remaining")) - 1);
  });

  it("refuses a cross-origin cookie POST to /%61pi/auth/logout with 403, and the session survives", async () => {
    const client = new Client(server.url);
    await client.signup();
    const evil = await client.post("/%61pi/auth/logout", undefined, { origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.body.error.code).toBe("forbidden");
    expect((await client.get("/api/me")).status).toBe(200);
  });

  it("answers OAuth protocol errors in RFC 6749 form on /%6fauth/token", async () => {
    const res = await new Client(server.url).request("POST", "/%6fauth/token", {
      body: "grant_type=nope",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("ratelimit-limit")).toBe("120");
    expect(typeof res.body.error).toBe("string");
  });

  it("answers unknown encoded API paths with the API's 404, not the dashboard", async () => {
    const res = await new Client(server.url).get("/%61pi/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });
});

describe("deeply nested bodies", () => {
  it("answers 400 invalid_request for a JSON body nested 300,000 levels deep", async () => {
    const depth = 300_000;
    const body = `{"email":${"[".repeat(depth)}${"]".repeat(depth)},"password":"x"}`;
    const res = await new Client(server.url).request("POST", "/api/auth/login", { body, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.message).toMatch(/nested too deeply/);
  });

  it("accepts 64 levels", async () => {
    const body = { email: JSON.parse(`${"[".repeat(63)}${"]".repeat(63)}`), password: "x" };
    const res = await new Client(server.url).post("/api/auth/login", body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields).toHaveProperty("email");
  });
});

describe("security headers", () => {
  const DEFAULTS = { "x-content-type-options": "nosniff", "x-frame-options": "DENY", "referrer-policy": "strict-origin-when-cross-origin" };

  it("come with every kind of answer: success, client error, unknown API path, GraphQL, the dashboard", async () => {
    const answers = await Promise.all([
      fetch(`${server.url}/api/openapi.json`),
      fetch(`${server.url}/api/me`),
      fetch(`${server.url}/api/auth/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" }),
      fetch(`${server.url}/api/no-such-route`),
      fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ __typename }" }) }),
      fetch(`${server.url}/account`),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 401, 400, 404, 200, 200]);
    for (const res of answers) expect(Object.fromEntries(Object.keys(DEFAULTS).map((h) => [h, res.headers.get(h)]))).toEqual(DEFAULTS);
  });

  it("yield to a route's stricter policy: the OAuth pages forbid framing by CSP too", async () => {
    const res = await fetch(`${server.url}/oauth/authorize?client_id=svc_nobody&response_type=code`);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });
});

/** Sends a GET with exactly the Host header lines given (fetch and http.request set their own). */
function withHosts(base: string, path: string, hosts: string[]) {
  const { hostname, port } = new URL(base);
  const head = [`GET ${path} HTTP/1.1`, ...hosts.map((h) => `Host: ${h}`), "Connection: close", "", ""].join("\r\n");
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    let text = "";
    const socket = net.connect(Number(port), hostname, () => socket.end(head));
    socket.on("data", (chunk) => (text += chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const [status, body] = [Number(text.split(" ", 2)[1]), text.slice(text.indexOf("\r\n\r\n") + 4)];
      resolve({ status, body: body && JSON.parse(body) });
    });
  });
}

describe("the Host header", () => {
  it.each([["["], ["[::1"], ["[zz]"], ["a b"], ["example.com:99999"], ["exa/mple.com"], ["user@example.com"], [""], ["127.0.0.1", "evil.example"]])(
    "answers 400 invalid_request for Host %j, on /graphql, /api and the dashboard",
    async (...hosts) => {
      for (const path of ["/graphql?query=%7B__typename%7D", "/api/me", "/account"]) {
        const res = await withHosts(server.url, path, hosts);
        expect([path, res.status]).toEqual([path, 400]);
        expect(JSON.stringify(res.body)).toContain("invalid_request");
      }
    },
  );

  // Other host names are no longer the platform's: they get the unknown-host page (test/hosting/router-host.test.ts).
  it.each(["127.0.0.1", "localhost:3000", "[::1]:8080"])("serves Host %j", async (host) => {
    const res = await withHosts(server.url, "/graphql?query=%7B__typename%7D", [host]);
    expect(res).toEqual({ status: 200, body: { data: { __typename: "Query" } } });
  });
});

describe("GraphQL GET parameters", () => {
  const get = (params: string) => new Client(server.url).get(`/graphql?query=${encodeURIComponent("{ __typename }")}&${params}`);

  it.each([
    ["variables=%7B", /"variables" parameter is not valid JSON/],
    ["extensions=%7B", /"extensions" parameter is not valid JSON/],
    ["variables=%5B1%5D", /"variables" parameter must be a JSON object/],
    ["variables=5", /"variables" parameter must be a JSON object/],
  ])("answers 400 invalid_request for %s", async (params, message) => {
    const res = await get(params);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe("invalid_request");
    expect(res.body.errors[0].message).toMatch(message);
  });

  it("runs a query with JSON object variables and extensions", async () => {
    const res = await get(`variables=${encodeURIComponent('{"a":1}')}&extensions=${encodeURIComponent("{}")}`);
    expect(res.body).toEqual({ data: { __typename: "Query" } });
  });
});

describe("401 answers", () => {
  it("send WWW-Authenticate for invalid_credentials too", async () => {
    const res = await new Client(server.url).post("/api/auth/login", { email: "nobody-here@example.com", password: "wrong password" });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_credentials");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="slipway"');
  });
});

describe("schema introspection", () => {
  const INTROSPECT = "{ __schema { queryType { name } } }";
  let production: TestServer;
  beforeAll(async () => {
    production = await startServer({ NODE_ENV: "production" });
  });
  afterAll(() => production?.close());

  it("is refused to anonymous callers in production, over HTTP and graphql-ws alike", async () => {
    const res = await new Client(production.url).graphql(INTROSPECT);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors?.[0].extensions?.code).toBe("invalid_request");
    expect(res.body.errors?.[0].message).toMatch(/introspection/i);
    const typeQuery = await new Client(production.url).graphql('{ __type(name: "User") { name } }');
    expect(typeQuery.body.errors?.[0].extensions?.code).toBe("invalid_request");
    const ws = createClient({ url: `${production.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    const overWs = await new Promise<any>((resolve, reject) => ws.subscribe({ query: INTROSPECT }, { next: resolve, error: resolve, complete: () => reject(new Error("no answer")) }));
    await ws.dispose();
    expect(overWs[0]?.extensions?.code ?? overWs.errors?.[0].extensions?.code).toBe("invalid_request");
  });

  it("is answered to signed-in callers in production, and to anyone in development", async () => {
    const user = new Client(production.url);
    await user.signup();
    expect((await user.graphql(INTROSPECT)).body).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
    expect((await new Client(server.url).graphql(INTROSPECT)).body).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
    // An anonymous caller after a signed-in one is refused again (validation results are cached per rule set).
    expect((await new Client(production.url).graphql(INTROSPECT)).body.errors?.[0].extensions?.code).toBe("invalid_request");
  });
});
