import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { REDIS_URL, startServer, type TestServer } from "../helpers/server.ts";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => Promise.all(servers.map((s) => s.close())));

async function boot(env: Record<string, string>) {
  const server = await startServer(env);
  servers.push(server);
  return server;
}

describe("rate limiting", () => {
  it("sends RateLimit headers and answers 429 with Retry-After past the limit (anonymous, by address)", async () => {
    const server = await boot({ DEFAULT_REQUESTS_PER_MINUTE: "3" });
    const client = new Client(server.url);
    const first = await client.get("/api/me");
    expect(first.status).toBe(401);
    expect(first.headers.get("ratelimit-limit")).toBe("3");
    expect(first.headers.get("ratelimit-remaining")).toBe("2");
    expect(Number(first.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
    await client.get("/api/me");
    await client.graphql("{ __typename }");
    const limited = await client.get("/api/openapi.json");
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    const graphql = await client.graphql("{ __typename }");
    expect(graphql.status).toBe(429);
    expect(graphql.body.errors?.[0].extensions?.code).toBe("rate_limited");
  });

  it("counts a signed-in user against their own quota, not the address", async () => {
    const server = await boot({ DEFAULT_REQUESTS_PER_MINUTE: "4" });
    const user = new Client(server.url);
    await user.signup(); // 1 request on the address
    await server.slipway.platform.db.quota.updateMany({ data: { requestsPerMinute: 50 } });
    for (let i = 0; i < 10; i++) expect((await user.get("/api/me")).status).toBe(200);
    expect((await user.get("/api/me")).headers.get("ratelimit-limit")).toBe("50");
    // The anonymous address budget is untouched by the user's requests.
    const anonymous = await new Client(server.url).get("/api/me");
    expect(anonymous.headers.get("ratelimit-remaining")).toBe("2");
  });

  it("counts a POST /oauth/token like any other request", async () => {
    const server = await boot({ DEFAULT_REQUESTS_PER_MINUTE: "2" });
    const client = new Client(server.url);
    const token = () =>
      client.request("POST", "/oauth/token", { body: "grant_type=client_credentials", headers: { "content-type": "application/x-www-form-urlencoded" } });
    const first = await token();
    expect(first.status).toBe(400);
    expect(first.headers.get("ratelimit-remaining")).toBe("1");
    expect((await client.get("/api/me")).headers.get("ratelimit-remaining")).toBe("0");
    const limited = await token();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("does not count requests outside /api, /graphql and /oauth", async () => {
    const server = await boot({ DEFAULT_REQUESTS_PER_MINUTE: "1" });
    const client = new Client(server.url);
    for (let i = 0; i < 3; i++) await client.get("/some/dashboard/page");
    expect((await client.get("/api/me")).status).toBe(401);
  });

  it("holds across two instances sharing Redis", async () => {
    const prefix = `slipway-test-${process.pid}-${Date.now()}:`;
    const a = await boot({ DEFAULT_REQUESTS_PER_MINUTE: "4", REDIS_URL, REDIS_KEY_PREFIX: prefix });
    const b = await boot({ DEFAULT_REQUESTS_PER_MINUTE: "4", REDIS_URL, REDIS_KEY_PREFIX: prefix, DATABASE_URL: a.config.databaseUrl });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await new Client(a.url).get("/api/me")).status, (await new Client(b.url).get("/api/me")).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });
});
