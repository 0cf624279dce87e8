// /graphql's fast path (graphql/fast-path.ts) answers exactly as yoga does: the same script of requests runs
// against a server with the fast path and one without it (GRAPHQL_FAST_PATH=false), and every answer (status,
// content type, rate-limit headers, cookies, body) must be the same. Each step also says which path the fast
// server must have taken, so a fast path that declines everything fails too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Response } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

interface Step {
  name: string;
  /** Whether the fast path (rather than yoga) answers it on the fast server. */
  fast: boolean;
  send(clients: Clients): Promise<Response>;
}

interface Clients {
  anonymous: Client;
  user: Client;
  /** Signed in with a limit of 8 requests a minute. */
  limited: Client;
  badToken: Client;
}

const fields = "clientId name description scopes permissions authorizedAt";
const aliases = (n: number, field: string) => Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(" ");
const VIEWER = `query Viewer { viewer { user { id name preferred_username: preferredUsername email role status createdAt } quota { requestsPerMinute maxApps usage { apps } } } }`;
const raw = (client: Client, body: unknown, headers: Record<string, string> = {}) =>
  client.request("POST", "/graphql", { body: JSON.stringify(body), headers: { "content-type": "application/json", ...headers } });

const steps: Step[] = [
  { name: "anonymous viewer: unauthenticated", fast: true, send: (c) => c.anonymous.graphql(VIEWER) },
  { name: "anonymous introspection (production): refused at validation", fast: false, send: (c) => c.anonymous.graphql(`{ __schema { queryType { name } } }`) },
  { name: "bad Bearer token", fast: true, send: (c) => c.badToken.graphql(VIEWER) },
  { name: "viewer", fast: true, send: (c) => c.user.graphql(VIEWER) },
  { name: "viewer again (cached document)", fast: true, send: (c) => c.user.graphql(VIEWER) },
  { name: "operationName, null variables, empty extensions", fast: true, send: (c) => raw(c.user, { query: VIEWER, operationName: "Viewer", variables: null, extensions: {} }) },
  { name: "signed-in introspection", fast: true, send: (c) => c.user.graphql(`{ __schema { queryType { name } } }`) },
  { name: "syntax error", fast: false, send: (c) => c.user.graphql(`{ viewer { `) },
  { name: "unknown field", fast: false, send: (c) => c.user.graphql(`{ nope }`) },
  { name: "variable of the wrong type", fast: true, send: (c) => c.user.graphql(`query ($first: Int!) { apps(first: $first) { slug } }`, { first: "ten" }) },
  { name: "missing variable", fast: true, send: (c) => c.user.graphql(`query ($first: Int!) { apps(first: $first) { slug } }`) },
  {
    name: "mutation answering a domain error",
    fast: true,
    send: (c) => c.user.graphql(`mutation ($input: CreateAppInput!) { createApp(input: $input) { ... on App { slug } ... on Error { code message } } }`, { input: { slug: "Not A Slug" } }),
  },
  {
    name: "mutation",
    fast: true,
    send: (c) => c.user.graphql(`mutation ($input: CreateAppInput!) { createApp(input: $input) { ... on App { slug name status url } } }`, { input: { slug: "fast-path-app" } }),
  },
  { name: "resolver error (not found) with a path", fast: true, send: (c) => c.user.graphql(`{ app(slug: "no-such-app") { slug } }`) },
  { name: "two operations, no name", fast: false, send: (c) => c.user.graphql(`query A { viewer { user { id } } } query B { apps { slug } }`) },
  { name: "two operations, one named", fast: true, send: (c) => raw(c.user, { query: `query A { viewer { user { id } } } query B { apps { slug } }`, operationName: "B" }) },
  { name: "an operation name that selects nothing", fast: false, send: (c) => raw(c.user, { query: `query A { apps { slug } }`, operationName: "C" }) },
  { name: "Accept graphql-response+json", fast: true, send: (c) => c.user.graphql(VIEWER, undefined, { accept: "application/graphql-response+json" }) },
  { name: "Accept graphql-response+json, error", fast: true, send: (c) => c.anonymous.graphql(VIEWER, undefined, { accept: "application/graphql-response+json" }) },
  { name: "Accept both JSON types, in order", fast: true, send: (c) => c.user.graphql(VIEWER, undefined, { accept: "application/json, application/graphql-response+json;q=0.9" }) },
  { name: "Accept an event stream", fast: false, send: (c) => c.user.graphql(VIEWER, undefined, { accept: "text/event-stream" }) },
  { name: "Accept nothing yoga serves", fast: false, send: (c) => c.user.graphql(VIEWER, undefined, { accept: "application/xml" }) },
  { name: "unknown parameter", fast: false, send: (c) => raw(c.user, { query: VIEWER, foo: 1 }) },
  { name: "variables not an object", fast: false, send: (c) => raw(c.user, { query: VIEWER, variables: [1] }) },
  { name: "query not a string", fast: false, send: (c) => raw(c.user, { query: 5 }) },
  { name: "a body that is not an object", fast: false, send: (c) => raw(c.user, [{ query: VIEWER }]) },
  { name: "a document over 32 KiB (left to yoga)", fast: false, send: (c) => c.user.graphql(`${VIEWER}${" ".repeat(33 * 1024)}`) },
  { name: "cost over 5,000", fast: true, send: (c) => c.user.graphql(`{ ${aliases(9, `authorizedApps(first: 100) { ${fields} }`)} }`) },
  { name: "costly operation, charged", fast: true, send: (c) => c.limited.graphql(`{ ${aliases(4, `authorizedApps(first: 100) { ${fields} }`)} }`) },
  { name: "costly operation, charged again", fast: true, send: (c) => c.limited.graphql(`{ ${aliases(4, `authorizedApps(first: 100) { ${fields} }`)} }`) },
  { name: "costly operation past the limit: 429", fast: true, send: (c) => c.limited.graphql(`{ ${aliases(4, `authorizedApps(first: 100) { ${fields} }`)} }`) },
  { name: "one request left", fast: true, send: (c) => c.limited.graphql(`{ viewer { user { id } } }`) },
  { name: "refused at the door: 429", fast: false, send: (c) => c.limited.graphql(`{ viewer { user { id } } }`) },
  {
    name: "sign in through GraphQL (sets the cookie)",
    fast: true,
    send: (c) => c.anonymous.graphql(`mutation ($input: LoginInput!) { login(input: $input) { ... on AuthPayload { user { name } } ... on Error { code } } }`, { input: { email: "fast@example.com", password: "correct horse battery" } }),
  },
  {
    name: "a wrong password",
    fast: true,
    send: (c) => c.badToken.graphql(`mutation ($input: LoginInput!) { login(input: $input) { ... on AuthPayload { user { name } } ... on Error { code message } } }`, { input: { email: "fast@example.com", password: "wrong" } }),
  },
];

interface Run {
  server: TestServer;
  answers: unknown[];
  /** The fast path's count after each step. */
  answered: number[];
}

async function run(env: Record<string, string>): Promise<Run> {
  const server = await startServer({ NODE_ENV: "production", DEFAULT_REQUESTS_PER_MINUTE: "1000", ...env });
  const clients: Clients = {
    anonymous: new Client(server.url),
    user: new Client(server.url),
    limited: new Client(server.url),
    badToken: Object.assign(new Client(server.url), { token: "slw_not_a_token" }),
  };
  await clients.user.signup({ name: "fast", email: "fast@example.com" });
  const { user } = await clients.limited.signup({ name: "limited", email: "limited@example.com" });
  await server.slipway.platform.db.quota.update({ where: { userId: user.id }, data: { requestsPerMinute: 8 } });
  const answers: unknown[] = [];
  const answered: number[] = [];
  for (const step of steps) {
    answers.push(normalized(await step.send(clients), server.url));
    answered.push(server.slipway.graphqlFastPath?.answered ?? 0);
  }
  return { server, answers, answered };
}

/** What must be equal: ids, times and ports differ between two servers, and a second may pass between them. */
function normalized(res: Response, origin: string) {
  const text = JSON.stringify(res.body)
    .replaceAll(`:${new URL(origin).port}/`, ":<port>/")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/(\\*"id\\*":\\*")[^"\\]+/g, "$1<id>")
    .replace(/in \d+ seconds/g, "in <n> seconds")
    .replace(/"retryAfter":\d+/g, '"retryAfter":"<n>"');
  const header = (name: string) => res.headers.get(name);
  return {
    status: res.status,
    headerNames: [...res.headers.keys()].sort(),
    contentType: header("content-type"),
    rateLimit: [header("ratelimit-limit"), header("ratelimit-remaining"), header("ratelimit-reset") !== null],
    retryAfter: header("retry-after") !== null,
    setsCookie: res.headers.getSetCookie().map((c) => c.replace(/=[^;]*/, "=<value>").replace(/Expires=[^;]*/, "Expires=<time>")),
    body: JSON.parse(text),
  };
}

describe("the /graphql fast path", () => {
  let fast: Run;
  let yoga: Run;
  beforeAll(async () => {
    fast = await run({});
    yoga = await run({ GRAPHQL_FAST_PATH: "false" });
  }, 120_000);
  afterAll(() => Promise.all([fast?.server.close(), yoga?.server.close()]));

  it("answers every request exactly as yoga does", () => {
    for (const [i, step] of steps.entries()) expect(fast.answers[i], step.name).toEqual(yoga.answers[i]);
    expect(yoga.server.slipway.graphqlFastPath).toBeNull();
  });

  it("takes the requests it can, and leaves the rest to yoga", () => {
    const took = fast.answered.map((count, i) => count - (fast.answered[i - 1] ?? 0));
    expect(Object.fromEntries(steps.map((step, i) => [step.name, took[i] === 1]))).toEqual(Object.fromEntries(steps.map((step) => [step.name, step.fast])));
  });

  it("answers what the script expects (so that two equally wrong answers fail too)", () => {
    const body = (name: string) => (fast.answers[steps.findIndex((s) => s.name === name)] as { status: number; contentType: string; body: any });
    expect(body("anonymous viewer: unauthenticated").body.errors[0].extensions.code).toBe("unauthenticated");
    expect(body("viewer").body.data.viewer.user.name).toBe("fast");
    expect(body("signed-in introspection").body.data.__schema.queryType.name).toBe("Query");
    expect(body("anonymous introspection (production): refused at validation").body.errors[0].message).toMatch(/introspection/);
    expect(body("mutation").body.data.createApp.slug).toBe("fast-path-app");
    expect(body("cost over 5,000").body.errors[0].message).toMatch(/costs 5490/);
    expect(body("costly operation past the limit: 429").status).toBe(429);
    expect(body("costly operation past the limit: 429").body.errors[0].extensions.code).toBe("rate_limited");
    expect(body("refused at the door: 429").status).toBe(429);
    expect(body("Accept graphql-response+json").contentType).toBe("application/graphql-response+json; charset=utf-8");
    expect((fast.answers[steps.findIndex((s) => s.name === "sign in through GraphQL (sets the cookie)")] as { setsCookie: string[] }).setsCookie).toHaveLength(1);
  });
});
