// The router with custom domains (RouteTable.domain): a verified hostname reaches its app like the app's own host,
// WebSockets included, with cookies confined to that hostname; a pending one answers only its challenge.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { DomainTarget } from "../../server/hosting/router/types.ts";
import { request } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { attachEcho, startUpstream, TestRoutes, type Upstream } from "./router-helpers.ts";

class DomainRoutes extends TestRoutes {
  readonly domains = new Map<string, DomainTarget>();
  domain(hostname: string): DomainTarget | undefined {
    return this.domains.get(hostname);
  }
}

const TOKEN = "t".repeat(32);
const routes = new DomainRoutes();
let server: TestServer;
let echo: Upstream;

function echoRequest(req: http.IncomingMessage, res: http.ServerResponse) {
  res.setHeader("set-cookie", ["app=1; Path=/", "mine=1; Domain=shop.example.test", "wide=1; Domain=example.test", "apps=1; Domain=echo.localhost"]);
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ url: req.url, host: req.headers.host, forwardedHost: req.headers["x-forwarded-host"] }));
}

beforeAll(async () => {
  server = await startServer({}, { routeTable: routes });
  echo = await startUpstream(echoRequest);
  attachEcho(echo.server);
  routes.targets.set("echo", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: echo.port }] });
  routes.targets.set("parked", { kind: "unavailable", slug: "parked", status: "STOPPED" });
  routes.domains.set("shop.example.test", { slug: "echo", verified: true });
  routes.domains.set("stopped.example.test", { slug: "parked", verified: true });
  routes.domains.set("pending.example.test", { slug: "echo", verified: false, token: TOKEN });
});
afterAll(async () => {
  await server?.close();
  await echo?.close();
});

describe("custom domains in the router", () => {
  it("sends a verified domain to its app on any path, with its Host, keeping only cookies for that hostname", async () => {
    for (const path of ["/", "/api/me", "/graphql", `/.well-known/slipway-challenge/${TOKEN}`]) {
      const res = await request(server.url, "Shop.Example.Test.:8080", path);
      expect(res.status, path).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ url: path, host: "Shop.Example.Test.:8080" });
      expect(res.headers["set-cookie"]).toEqual(["app=1; Path=/", "mine=1; Domain=shop.example.test"]);
    }
    const stopped = await request(server.url, "stopped.example.test", "/");
    expect(stopped.status).toBe(503);
    expect(stopped.body).toMatch(/is stopped/);
  });

  it("answers a pending domain's challenge and nothing else; unknown hostnames get the 404 page", async () => {
    const challenge = await request(server.url, "pending.example.test", `/.well-known/slipway-challenge/${TOKEN}`);
    expect(challenge).toMatchObject({ status: 200, body: TOKEN });
    const head = await request(server.url, "pending.example.test", `/.well-known/slipway-challenge/${TOKEN}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    for (const [method, path] of [["POST", `/.well-known/slipway-challenge/${TOKEN}`], ["GET", `/.well-known/slipway-challenge/${TOKEN}?x=1`], ["GET", "/"], ["GET", "/api/me"]]) {
      const res = await request(server.url, "pending.example.test", path, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatch(/No app here/);
    }
    // A hostname no app claims is no platform host either: the same 404 page, never the platform's API or dashboard.
    for (const path of ["/", "/api/me"]) {
      const other = await request(server.url, "other.example.test", path);
      expect([other.status, other.body], path).toEqual([404, (await request(server.url, "ghost.localhost", "/")).body]);
    }
    const refused = new WebSocket(`${server.url.replace(/^http/, "ws")}/graphql`, { headers: { host: "other.example.test" } });
    expect(await new Promise<number>((resolve) => refused.once("unexpected-response", (_req, res) => resolve(res.statusCode!)))).toBe(404);
  });

  it("pipes a verified domain's WebSocket to the app and refuses a pending one's", async () => {
    const url = server.url.replace(/^http/, "ws");
    const ws = new WebSocket(`${url}/socket`, { headers: { host: "shop.example.test" } });
    const reply = await new Promise<string>((resolve, reject) => {
      ws.once("open", () => ws.send("hi"));
      ws.once("message", (data) => resolve(data.toString()));
      ws.once("error", reject);
    });
    expect(reply).toMatch(/^\/socket \S+ hi$/);
    ws.close();
    const pending = new WebSocket(`${url}/socket`, { headers: { host: "pending.example.test" } });
    const status = await new Promise<number>((resolve) => pending.once("unexpected-response", (_req, res) => resolve(res.statusCode!)));
    expect(status).toBe(404);
  });
});
