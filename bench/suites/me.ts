// `GET /api/me` over REST and the same selection over GraphQL, against a plain Fastify route answering
// the identical JSON body in the same run.
import type { FastifyInstance } from "fastify";
import { buildSchema, execute, parse, printSchema } from "graphql";
import { isDeepStrictEqual } from "node:util";
import { schema } from "../../server/graphql/schema/index.ts";
import { withFragments } from "../../server/rest/fragments.ts";
import { routes } from "../../server/rest/routes.ts";
import { startPlainFastify } from "../lib/baseline.ts";
import { startChildServers } from "../lib/child-server.ts";
import { fetchJson, signUp, startSlipway } from "../lib/slipway.ts";
import { issueTokens, registerClient } from "../lib/slipway-oauth.ts";
import type { PreparedSuite, Row, Scenario, Suite, Target } from "../lib/types.ts";

// Without this the limiter answers 429 after 120 requests a minute. It stays enabled: counting is part of
// what a request costs. Accounts created at signup copy this default into their quota.
const REQUESTS_PER_MINUTE = "100000000";

// The fields GET /api/me returns (server/rest/fragments.ts), written as a client would write them.
const VIEWER_QUERY = `query Viewer {
  viewer {
    user { id name preferred_username: preferredUsername email avatar role status createdAt }
    quota { requestsPerMinute maxApps maxDatabases maxInstances cdnBytes maxUploadBytes usage { apps databases instances cdnBytes } }
  }
}`;

export interface MeServers {
  slipwayUrl: string;
  /** The JSON body of GET /api/me, as the server answered it. */
  me: unknown;
  cookie: string;
  baseline: Scenario;
  rest: Scenario;
  /** REST `GET /api/me` with an OAuth access token instead of the cookie. */
  bearer: Scenario;
  graphql: Scenario;
  setupNotes: string[];
  close(): Promise<void>;
}

/**
 * Boots Slipway (plus any bench-only routes, which get the /api/me body once it is known), signs up,
 * checks that REST, GraphQL and the plain route answer the same JSON, and starts the plain route.
 */
export async function startMeServers(
  addRoutes?: (app: FastifyInstance, body: () => unknown) => void,
  env: Record<string, string> = {},
): Promise<MeServers> {
  let me: unknown;
  const server = await startSlipway({ DEFAULT_REQUESTS_PER_MINUTE: REQUESTS_PER_MINUTE, ...env }, addRoutes && ((app) => addRoutes(app, () => me)));
  try {
    const cookie = await signUp(server.url, `bench-${process.pid}`);
    me = await fetchJson(`${server.url}/api/me`, { headers: { cookie } });
    const graphqlBody = JSON.stringify({ query: VIEWER_QUERY });
    const graphqlHeaders = { cookie, "content-type": "application/json" };
    const viaGraphql = (await fetchJson(`${server.url}/graphql`, { method: "POST", headers: graphqlHeaders, body: graphqlBody })) as {
      data?: { viewer?: unknown };
    };
    if (!isDeepStrictEqual(viaGraphql.data?.viewer, me)) {
      throw new Error(`GraphQL viewer differs from GET /api/me:\n${JSON.stringify(viaGraphql)}\n${JSON.stringify(me)}`);
    }
    const { access_token: accessToken } = await issueTokens(server.url, cookie, await registerClient(server.url, cookie));
    const bearerHeaders = { authorization: `Bearer ${accessToken}` };
    if (!isDeepStrictEqual(await fetchJson(`${server.url}/api/me`, { headers: bearerHeaders }), me)) throw new Error("GET /api/me with the Bearer token differs");
    const plain = await startPlainFastify("/me", me);
    if (!isDeepStrictEqual(await fetchJson(plain.url), me)) throw new Error("the plain route does not answer the /api/me body");

    return {
      slipwayUrl: server.url,
      me,
      cookie,
      baseline: { name: "baseline", label: "plain Fastify `GET /me` (same JSON, no DB, no auth)", target: { url: plain.url } },
      rest: { name: "rest", label: "REST `GET /api/me` (session cookie)", target: { url: `${server.url}/api/me`, headers: { cookie } } },
      bearer: { name: "bearer", label: "REST `GET /api/me` (Bearer access token)", target: { url: `${server.url}/api/me`, headers: bearerHeaders } },
      graphql: {
        name: "graphql",
        label: "GraphQL `POST /graphql` `{ viewer { user quota } }`",
        target: { url: `${server.url}/graphql`, method: "POST", headers: graphqlHeaders, body: graphqlBody },
      },
      setupNotes: [
        "Real server built by `buildSlipway(loadConfig(...))` in the bench process: fresh SQLite database in a temp `DATA_DIR`, `LOG_LEVEL=silent`, in-memory rate-limit counters (no `REDIS_URL`).",
        `\`DEFAULT_REQUESTS_PER_MINUTE=${REQUESTS_PER_MINUTE}\` so the rate limiter (still on, still counting every request) never answers 429.`,
        "One account signed up through `POST /api/auth/signup`; every request carries its session cookie, except `bearer`, which carries an access token (`read:user`) that a registered confidential client obtained through the consent page and the code exchange.",
        `Before measuring, the GraphQL \`data.viewer\` and the plain route's body were checked to equal the \`GET /api/me\` body (${JSON.stringify(me).length} bytes of JSON).`,
      ],
      async close() {
        await plain.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * startMeServers in a child process of its own (lib/child-server.ts): a configuration compared against the one
 * under test, whose traffic must not shape the JIT state of the code the bench process runs. Its scenarios
 * read that process's busy time.
 */
export async function startMeServersInChild(env: Record<string, string>): Promise<MeServers> {
  const entry = new URL(import.meta.url.endsWith(".ts") ? "./me-child.ts" : "./me-child.js", import.meta.url);
  const child = await startChildServers<Omit<MeServers, "close">>(entry, env);
  const remote = (scenario: Scenario): Scenario => ({ ...scenario, target: { ...(scenario.target as Target), busy: child.busy } });
  const { rest, bearer, graphql } = child.value;
  return { ...child.value, rest: remote(rest), bearer: remote(bearer), graphql: remote(graphql), close: child.close };
}

/**
 * The least any REST adapter that runs `execute` can cost for GET /api/me: a bare Fastify route executing
 * the route's own document against Slipway's schema rebuilt from its SDL (no Pothos, no auth, no context),
 * whose default resolvers read the answer from a constant root value.
 */
async function startExecuteFloor(me: { user: Record<string, unknown>; quota: unknown }) {
  const bare = buildSchema(printSchema(schema));
  const document = parse(withFragments(routes.find((r) => r.path === "/api/me")!.document));
  // The document asks for `preferred_username: preferredUsername`; a default resolver reads the field's name.
  const rootValue = { viewer: { user: { ...me.user, preferredUsername: me.user.preferred_username }, quota: me.quota } };
  const server = await startPlainFastify("/me", async () => {
    const result = await execute({ schema: bare, document, rootValue });
    if (result.errors) throw result.errors[0];
    return (result.data as { viewer: unknown }).viewer;
  });
  if (!isDeepStrictEqual(await fetchJson(server.url), me)) {
    await server.close();
    throw new Error("the execute floor does not answer the /api/me body");
  }
  return server;
}

export const COLUMNS_EXPLAINED =
  "**× baseline** = requests/s of the scenario ÷ requests/s of the plain Fastify route in the same run (same machine, " +
  "connections and duration). **server µs/req** = busy time of the thread the scenario's server runs on (event-loop utilization; " +
  "autocannon runs in a worker thread) per answered request: the cost per request, which holds even where the load " +
  "generator rather than the server was the limit. Absolute numbers move with the machine and its load (±30% on a " +
  "shared box); compare ratios between runs.";

export const meSuite: Suite = {
  name: "me",
  pairedBaseline: true,
  title: "Authenticated GET /api/me: REST and GraphQL vs a plain Fastify route",
  targets: [
    { scenario: "rest", min: 0.5 },
    { scenario: "graphql", min: 0.3 },
  ],

  async setup(): Promise<PreparedSuite> {
    const servers = await startMeServers();
    // The same server as before the fast path (every /graphql request through yoga, compiled), and as before
    // compiled execution (graphql-js `execute`, through yoga).
    const yoga = await startMeServersInChild({ GRAPHQL_FAST_PATH: "false" }).catch(async (error: unknown) => {
      await servers.close();
      throw error;
    });
    const interpreted = await startMeServersInChild({ GRAPHQL_JIT: "false", GRAPHQL_FAST_PATH: "false" }).catch(async (error: unknown) => {
      await Promise.all([servers.close(), yoga.close()]);
      throw error;
    });
    const floor = await startExecuteFloor(servers.me as Parameters<typeof startExecuteFloor>[0]).catch(async (error: unknown) => {
      await Promise.all([servers.close(), yoga.close(), interpreted.close()]);
      throw error;
    });
    return {
      baseline: servers.baseline,
      scenarios: [
        servers.rest,
        servers.bearer,
        servers.graphql,
        { ...yoga.graphql, name: "graphql-yoga", label: "GraphQL `{ viewer … }` with `GRAPHQL_FAST_PATH=false` (through yoga, compiled: before this change)" },
        { ...interpreted.rest, name: "rest-graphql-js", label: "REST `GET /api/me` with `GRAPHQL_JIT=false` (graphql-js `execute`)" },
        { ...interpreted.graphql, name: "graphql-graphql-js", label: "GraphQL `{ viewer … }` with `GRAPHQL_JIT=false GRAPHQL_FAST_PATH=false` (yoga, graphql-js `execute`)" },
        { name: "execute-floor", label: "plain Fastify + only `execute` of the REST document (bare schema, constant data)", target: { url: floor.url } },
      ],
      setupNotes: [
        ...servers.setupNotes,
        "`graphql-yoga` runs on a second Slipway server, in a child process of its own, set up the same way but with `GRAPHQL_FAST_PATH=false`: every /graphql request goes through yoga's Fetch-API pipeline with compiled execution, as on the commit before the fast path (the comparison the GraphQL goal asks for: at least 1.5× what it reaches today).",
        "`rest-graphql-js` and `graphql-graphql-js` run on a third server, in a third process, with `GRAPHQL_JIT=false GRAPHQL_FAST_PATH=false`: every operation runs through graphql-js `execute` (and /graphql through yoga), as before compiled execution. The compared servers run in processes of their own because all Slipway servers share one schema and its resolvers: in one process, graphql-js traffic on the third server left the compiled path of the first 60–70% slower (its server µs/req went from 92 to 157 in a probe). Their server µs/req is their own process's busy time.",
        "`execute-floor` is a second bare Fastify app whose route runs graphql-js 16 `execute` of `GET /api/me`'s own document (parsed once) against Slipway's schema rebuilt from its SDL: default resolvers reading a constant root value, no Pothos, no auth, no database. It is the least any REST adapter that runs `execute` can cost for this body. Its answer was checked to equal the `GET /api/me` body.",
      ],
      async close() {
        await floor.close();
        await Promise.all([servers.close(), yoga.close(), interpreted.close()]);
      },
    };
  },

  explain(rows: Row[]) {
    const row = (name: string) => rows.find((r) => r.scenario.name === name);
    const [rest, bearer, graphql, graphqlYoga, restJs, graphqlJs, floor, baseline] = ["rest", "bearer", "graphql", "graphql-yoga", "rest-graphql-js", "graphql-graphql-js", "execute-floor", "baseline"].map(row);
    const met = (ok: boolean) => (ok ? "**met**" : "**missed**");
    const sentences: string[] = [];
    if (rest) sentences.push(`REST reached **${rest.ratio.toFixed(2)}×** the plain route: the target (≥ 0.5×) is ${met(rest.ratio >= 0.5)}.`);
    if (graphql) sentences.push(`GraphQL reached **${graphql.ratio.toFixed(2)}×**: the target (≥ 0.3×) is ${met(graphql.ratio >= 0.3)}.`);
    if (graphql && graphqlYoga) {
      const gain = graphql.requestsPerSecond / graphqlYoga.requestsPerSecond;
      sentences.push(`With the fast path, GraphQL does **${gain.toFixed(2)}×** what it does through yoga (the path before it) in the same run: the target (≥ 1.5×) is ${met(gain >= 1.5)}.`);
    }
    if (graphql && graphqlJs) sentences.push(`It does **${(graphql.requestsPerSecond / graphqlJs.requestsPerSecond).toFixed(2)}×** yoga with graphql-js \`execute\`.`);
    if (rest && restJs) sentences.push(`REST compiled does **${(rest.requestsPerSecond / restJs.requestsPerSecond).toFixed(2)}×** REST on graphql-js.`);
    if (rest && bearer) {
      const cost = bearer.requestsPerSecond / rest.requestsPerSecond;
      sentences.push(`A Bearer request reaches **${cost.toFixed(2)}×** a cookie request's throughput: the target (within ±10%) is ${met(cost >= 0.9)}.`);
    }
    if (floor && baseline) {
      sentences.push(
        `The \`execute-floor\` row runs nothing but graphql-js \`execute\` of the same document on a bare schema with constant data ` +
          `(≈ ${Math.round(floor.serverMicrosPerRequest - baseline.serverMicrosPerRequest)} µs more than the plain route, **${floor.ratio.toFixed(2)}×**): ` +
          "the most an adapter running graphql-js `execute` could reach, which compiled execution is not bound by.",
      );
    }
    return [
      COLUMNS_EXPLAINED,
      "The plain route is the ceiling for this body on this machine (Fastify's own cost), so the ratio shows what Slipway's",
      "work per request costs: the guard (session or token lookup through the read cache, rate-limit counter, RateLimit-* and",
      "security headers), the GraphQL context and the compiled REST document (REST); for GraphQL also the JSON body, the",
      "document looked up by its text (parsed, validated and compiled once) and yoga's result processor (the fast path), or",
      "yoga's Fetch-API request pipeline (`graphql-yoga`). The `me-layers` section breaks REST down by layer.",
      ...sentences,
    ].join(" ");
  },
};
