import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../server/rest/routes.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

describe("GET /api/openapi.json", () => {
  it("documents every route of the route table, generated from its GraphQL operation", async () => {
    const res = await new Client(server.url).get("/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.servers[0].url).toBe(server.url);
    for (const route of routes) {
      const operation = res.body.paths[route.path.replace(/:(\w+)/g, "{$1}")]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.summary).toBe(route.summary);
    }
  });

  it("derives bodies from GraphQL input types and responses from the selection", async () => {
    const { body } = await new Client(server.url).get("/api/openapi.json");
    const signup = body.paths["/api/auth/signup"].post;
    expect(signup.requestBody.content["application/json"].schema).toMatchObject({
      type: "object",
      required: ["email", "name", "password"],
      properties: { email: { type: "string" } },
    });
    const user = signup.responses["201"].content["application/json"].schema.properties.user;
    expect(Object.keys(user.properties)).toEqual(["id", "name", "preferred_username", "email", "avatar", "role", "status", "createdAt"]);
    const me = body.paths["/api/me"].get.responses["200"].content["application/json"].schema;
    expect(Object.keys(me.properties)).toEqual(["user", "quota"]);
    expect(me.properties.quota.properties.usage.properties.cdnBytes).toEqual({ type: "integer", minimum: 0 });
    expect(body.paths["/api/auth/logout"].post.responses["204"]).toBeDefined();
  });

  it("sends protective headers on every response", async () => {
    const res = await new Client(server.url).get("/api/openapi.json");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  });

  it("answers an unknown API path with the contract's 404 body", async () => {
    const res = await new Client(server.url).get("/api/nope");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });
});
