// Compiled execution (graphql-jit): every REST document compiles at boot, /graphql runs compiled, and what
// graphql-jit refuses (or GRAPHQL_JIT=false) runs through graphql-js with the same answers.
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UnauthenticatedError } from "../../server/errors.ts";
import { compileOperation } from "../../server/graphql/compiled.ts";
import { schema } from "../../server/graphql/schema/index.ts";
import { compileRoutes } from "../../server/rest/adapter.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("compiling", () => {
  it("compiles every REST route's document", () => {
    const refused = compileRoutes(schema).filter((route) => !route.compiled);
    expect(refused.map(({ route }) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it("runs a document graphql-jit refuses through graphql-js, with graphql-js's own answer", async () => {
    // Two operations and no operation name: graphql-jit refuses to compile; graphql-js answers the error.
    const operation = compileOperation(schema, parse(`query A { __typename } query B { __typename }`));
    expect(operation.compiled).toBe(false);
    expect((await operation.run({}, {})).errors?.map((e) => e.message)).toEqual(["Must provide operation name if query contains multiple operations."]);
    const named = compileOperation(schema, parse(`query A { __typename } query B { __typename }`), "B");
    expect(named.compiled).toBe(true);
    expect(await named.run({}, {})).toEqual({ data: { __typename: "Query" } });
  });

  // Pothos caches the scopes per context; each run drops that cache (see forgetScopes), so a context whose
  // viewer changed between two runs is judged by its viewer now.
  it.each([true, false])("evaluates the auth scopes again on every run with the same context (jit: %s)", async (jit) => {
    const operation = compileOperation(schema, parse(`{ viewer { __typename } }`), null, { jit });
    const context = {
      viewer: {
        user: { id: "u1", name: "Ada", email: "ada@example.com", role: "USER", status: "ACTIVE" },
        scopes: new Set(["read:user"]),
        requestsPerMinute: 120,
        via: { kind: "session", sessionId: "s1" },
      } as unknown,
      services: { accounts: { user: async () => ({}), quotaOf: async () => ({}), cachedUser: () => undefined, cachedQuotaOf: () => undefined } },
    };
    expect(await operation.run({}, context)).toEqual({ data: { viewer: { __typename: "Viewer" } } });
    context.viewer = null;
    const signedOut = await operation.run({}, context);
    expect(signedOut.errors?.map((e) => e.originalError)).toEqual([expect.any(UnauthenticatedError)]);
  });
});

describe.each([
  ["compiled", "true"],
  ["graphql-js", "false"],
])("answers over REST and /graphql (%s)", (_name, jit) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ GRAPHQL_JIT: jit });
  });
  afterAll(() => server?.close());

  it("answers data, domain errors, resolver errors and variable errors the same way", async () => {
    const client = new Client(server.url);
    const { user } = await client.signup();
    const me = await client.get("/api/me");
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: user.id, name: user.name });
    const viaGraphql = await client.graphql(`query { viewer { user { id name } quota { maxApps } } }`);
    expect(viaGraphql.body).toEqual({ data: { viewer: { user: { id: user.id, name: user.name }, quota: { maxApps: 5 } } } });

    const invalid = await client.post("/api/apps", { slug: "Not A Slug" });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details.fields).toHaveProperty("slug");
    const wrongType = await client.post("/api/apps", { slug: 12 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details.fields).toHaveProperty("slug");
    const missing = await client.get("/api/apps/no-such-app");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");

    const badVariables = await client.graphql(`query ($first: Int!) { apps(first: $first) { slug } }`, { first: "ten" });
    expect(badVariables.body.errors?.[0].message).toMatch(/Int cannot represent/);
    const anonymous = await new Client(server.url).graphql(`query { viewer { user { id } } }`);
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe("unauthenticated");
  });
});
