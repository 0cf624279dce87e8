// The guard in front of /api, /graphql and /oauth: it must hold however the path is spelled, and hostile
// input must end in a 400, never a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
