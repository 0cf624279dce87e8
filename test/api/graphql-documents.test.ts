// GraphQL documents from clients: whatever their shape, a client mistake answers invalid_request, never internal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

describe("GraphQL documents over HTTP", () => {
  it("answers invalid_request, not internal, for a GraphQL document nested 100,000 levels deep", async () => {
    const depth = 100_000;
    const res = await new Client(server.url).graphql(`{${"a{".repeat(depth)}a${"}".repeat(depth)}}`);
    expect(res.body.errors?.[0].extensions?.code).toBe("invalid_request");
    expect(res.body.errors?.[0].message).toMatch(/tokens/);
  });

  it("answers invalid_request for the deepest nesting that fits in the token limit", async () => {
    const depth = 995; // { __typename(x: [[…]]) }: 6 tokens + 2 per level
    const res = await new Client(server.url).graphql(`{ __typename(x: ${"[".repeat(depth)}${"]".repeat(depth)}) }`);
    expect(res.body.errors?.[0].extensions?.code).toBe("invalid_request");
    expect(res.body.errors?.[0].message).not.toMatch(/tokens/);
  });

  it("still runs a query of 1,800 tokens", async () => {
    const aliases = Array.from({ length: 600 }, (_, i) => `a${i}: __typename`).join(" ");
    const res = await new Client(server.url).graphql(`{ ${aliases} }`);
    expect(res.body.errors).toBeUndefined();
    expect(Object.keys(res.body.data!)).toHaveLength(600);
  });

  it("reports validation errors as invalid_request, like syntax errors", async () => {
    const res = await new Client(server.url).graphql("{ nope }");
    expect(res.body.errors?.[0].extensions?.code).toBe("invalid_request");
    const overlapping = await new Client(server.url).graphql(`{ ${"__typename ".repeat(1900)}}`);
    expect(overlapping.body.errors?.[0].extensions?.code).toBe("invalid_request");
  });
});
