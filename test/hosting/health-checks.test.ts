// Health checks: app.json's "healthcheck" (an HTTP GET of its path, 2xx or 3xx passing) or, without a path, a TCP
// connect to PORT; the app's own setting over app.json's (PATCH and GraphQL, 400 on bad input), applied to the
// running app; and no health-check request in the runtime log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, requestApp, waitFor, webInstances, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: Client;
let counter = 0;
const newSlug = () => `health-${process.pid}-${++counter}`;
const files = (js: string, appJson?: unknown) => ({
  "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
  "server.js": js,
  ...(appJson === undefined ? {} : { "app.json": JSON.stringify(appJson) }),
});

/**
 * Answers 500 on / and `healthStatus` on /healthz; counts the requests to each path (GET /count?path=…), and logs
 * each request twice: as an access-log line (`GET /healthz 200`), and its user agent on a line of its own.
 */
const LOGGING_APP = (healthStatus: number) => `
  const counts = {};
  require("http").createServer((q, s) => {
    const path = q.url.split("?")[0];
    counts[path] = (counts[path] || 0) + 1;
    const status = path === "/healthz" ? ${healthStatus} : path === "/" ? 500 : 200;
    console.log(q.method + " " + q.url + " " + status);
    console.log("user-agent: " + q.headers["user-agent"]);
    s.statusCode = status;
    s.end(path === "/count" ? String(counts[new URL(q.url, "http://x").searchParams.get("path")] || 0) : "ok");
  }).listen(process.env.PORT);
`;

/** Accepts connections and never answers HTTP. */
const TCP_ONLY_APP = `require("net").createServer((socket) => socket.on("error", () => {})).listen(process.env.PORT);`;

beforeAll(async () => {
  server = await startServer({ DEFAULT_MAX_APPS: "20", DEFAULT_REQUESTS_PER_MINUTE: "100000", START_TIMEOUT_SECONDS: "5" });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

async function newApp(): Promise<string> {
  const slug = newSlug();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  return slug;
}

const get = (slug: string, path: string) => requestApp(server.url, `${slug}.localhost`, path);
const count = async (slug: string, path: string) => Number((await get(slug, `/count?path=${encodeURIComponent(path)}`)).body);
const runtimeLines = async (slug: string): Promise<string[]> => (await owner.get(`/api/apps/${slug}/logs?limit=1000`)).body.map((l: { line: string }) => l.line);

describe("app.json healthcheck", () => {
  it("goes live on its path's 2xx even though / answers 500, checks it periodically, and logs none of those checks", async () => {
    const slug = await newApp();
    const zip = await zipFolder(null, files(LOGGING_APP(200), { name: "x", healthcheck: { path: "/healthz", intervalSeconds: 1, timeoutSeconds: 1 } }));
    const deployment = await deploy(owner, slug, zip);
    expect(deployment.status).toBe("LIVE");
    const app = (await owner.get(`/api/apps/${slug}`)).body;
    expect(app.healthcheck).toBeNull();
    expect(app.effectiveHealthcheck).toEqual({ path: "/healthz", intervalSeconds: 1, timeoutSeconds: 1, source: "APP_JSON" });
    const build = (await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${deployment.id}&limit=1000`)).body.map((l: { line: string }) => l.line);
    expect(build).toContain("app.json: health check GET /healthz every 1 s (timeout 1 s).");

    // The start check and two periodic ones have reached the app; then requests of its own, through the router.
    await waitFor(async () => (await count(slug, "/healthz")) >= 3, 20_000, "periodic health checks");
    expect((await get(slug, "/healthzone")).status).toBe(200);
    expect((await get(slug, "/marker")).status).toBe(200);
    const lines = await waitFor(async () => {
      const all = await runtimeLines(slug);
      return all.includes("GET /marker 200") ? all : null;
    }, 10_000, "the marker request in the runtime log");
    expect(lines.filter((l) => l.startsWith("GET /healthz ") || l.includes("slipway-health-check"))).toEqual([]);
    expect(lines).toContain("GET /healthzone 200");
    expect(lines).toContain("GET /count?path=%2Fhealthz 200");
  });

  it("fails the deployment with a clear error when its path answers 500, and leaves the previous release serving", async () => {
    const slug = await newApp();
    expect((await deploy(owner, slug, await zipFolder(null, files(LOGGING_APP(200))))).status).toBe("LIVE");
    const failed = await deploy(owner, slug, await zipFolder(null, files(LOGGING_APP(500), { healthcheck: { path: "/healthz" } })));
    expect(failed.status).toBe("FAILED");
    expect(failed.error).toBe("The app did not pass its health check within 5 s: GET /healthz answered 500 (2xx or 3xx passes).");
    expect((await get(slug, "/healthz")).status).toBe(200);
  });

  it("fails the build naming the field of a bad healthcheck", async () => {
    const slug = await newApp();
    const cases: [unknown, RegExp][] = [
      [{ path: "healthz" }, /"healthcheck\.path": .*starts with "\/"/],
      [{ intervalSeconds: 0 }, /"healthcheck\.intervalSeconds": .*1 to 300/],
      [{ intervalSeconds: 5, timeoutSeconds: 10 }, /"healthcheck\.timeoutSeconds": .*no longer than the interval/],
      [{ interval: 5 }, /"healthcheck\.interval": Unknown field/],
      ["/healthz", /"healthcheck": Give an object/],
    ];
    for (const [healthcheck, message] of cases) {
      const failed = await deploy(owner, slug, await zipFolder(null, files(LOGGING_APP(200), { healthcheck })));
      expect(failed.status, JSON.stringify(healthcheck)).toBe("FAILED");
      expect(failed.error).toMatch(message);
    }
  });
});

describe("the default check", () => {
  it("is a TCP connect: an app that accepts connections but never answers HTTP goes live", async () => {
    const slug = await newApp();
    expect((await deploy(owner, slug, await zipFolder(null, files(TCP_ONLY_APP)))).status).toBe("LIVE");
    const app = (await owner.get(`/api/apps/${slug}`)).body;
    expect(app.effectiveHealthcheck).toEqual({ path: null, intervalSeconds: 5, timeoutSeconds: 2, source: "DEFAULT" });
    expect(webInstances(app).map((p) => p.state)).toEqual(["HEALTHY"]);
  });
});

describe("the app's own setting", () => {
  it("is not found on someone else's app, and refuses bad input with 400 naming the field (REST and GraphQL)", async () => {
    const slug = await newApp();
    const stranger = new Client(server.url);
    await stranger.signup();
    expect((await stranger.request("PATCH", `/api/apps/${slug}`, { json: { healthcheck: { path: "/x" } } })).status).toBe(404);
    const cases: [unknown, string][] = [
      [{ path: "healthz" }, "healthcheck.path"],
      [{ path: "/a b" }, "healthcheck.path"],
      [{ intervalSeconds: 301 }, "healthcheck.intervalSeconds"],
      [{ timeoutSeconds: 0 }, "healthcheck.timeoutSeconds"],
      [{ intervalSeconds: 3, timeoutSeconds: 4 }, "healthcheck.timeoutSeconds"],
    ];
    for (const [healthcheck, field] of cases) {
      const res = await owner.request("PATCH", `/api/apps/${slug}`, { json: { healthcheck } });
      expect(res.status, JSON.stringify(healthcheck)).toBe(400);
      expect(Object.keys(res.body.error.details.fields), JSON.stringify(healthcheck)).toEqual([field]);
    }
    for (const healthcheck of [{ intervalSeconds: "5" }, { intervalSeconds: 1.5 }, { bogus: 1 }, "/healthz"]) {
      const res = await owner.request("PATCH", `/api/apps/${slug}`, { json: { healthcheck } });
      expect(res.status, JSON.stringify(healthcheck)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    const gql = await owner.graphql(
      `mutation($slug: String!) { updateApp(slug: $slug, input: { healthcheck: { path: "nope" } }) { __typename ... on InvalidRequestError { fields { field } } } }`,
      { slug },
    );
    expect(gql.body.data.updateApp).toEqual({ __typename: "InvalidRequestError", fields: [{ field: "healthcheck.path" }] });
    expect((await owner.get(`/api/apps/${slug}`)).body.healthcheck).toBeNull();
  });

  it("wins over app.json, applies to the running app without a redeploy, and null clears it", async () => {
    const slug = await newApp();
    const zip = await zipFolder(null, files(LOGGING_APP(200), { healthcheck: { path: "/healthz", intervalSeconds: 1, timeoutSeconds: 1 } }));
    expect((await deploy(owner, slug, zip)).status).toBe("LIVE");

    const set = await owner.request("PATCH", `/api/apps/${slug}`, { json: { healthcheck: { path: "/alive", intervalSeconds: 1 } } });
    expect(set.status).toBe(200);
    expect(set.body.healthcheck).toEqual({ path: "/alive", intervalSeconds: 1, timeoutSeconds: 1 });
    expect(set.body.effectiveHealthcheck).toEqual({ path: "/alive", intervalSeconds: 1, timeoutSeconds: 1, source: "APP" });
    await waitFor(async () => (await count(slug, "/alive")) >= 2, 20_000, "checks of the new path");

    const gql = await owner.graphql(
      `mutation($slug: String!) { updateApp(slug: $slug, input: { healthcheck: null }) { ... on App { healthcheck { path } effectiveHealthcheck { path source } } } }`,
      { slug },
    );
    expect(gql.body.data.updateApp).toEqual({ healthcheck: null, effectiveHealthcheck: { path: "/healthz", source: "APP_JSON" } });
    const tcp = await owner.request("PATCH", `/api/apps/${slug}`, { json: { healthcheck: {} } });
    expect(tcp.body.effectiveHealthcheck).toEqual({ path: null, intervalSeconds: 5, timeoutSeconds: 2, source: "APP" });
  });
});
