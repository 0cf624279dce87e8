// The router in front of a real Slipway server: app hosts go to real upstream servers through a test
// RouteTable, every other host is the platform.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createRouter } from "../../server/hosting/router/index.ts";
import { request } from "../helpers/apps.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";
import { attachEcho, keepAlive, startUpstream, TestRoutes, type Upstream } from "./router-helpers.ts";

const routes = new TestRoutes();
let server: TestServer;
let port: string;
let echo: Upstream;

/** Echoes what it received: method, path, headers and the size of the body. */
function echoRequest(req: http.IncomingMessage, res: http.ServerResponse) {
  let size = 0;
  req.on("data", (chunk: Buffer) => (size += chunk.length));
  req.on("end", () => {
    // ?one-cookie: a single Set-Cookie (Django's csrftoken), which undici hands over as a string, not a list.
    const cookies = req.url?.endsWith("?one-cookie") ? ["only=1; Path=/"] : ["app=1; Path=/", "toss=1; Path=/; Domain=localhost", "own=1; domain=.Echo.localhost"];
    res.setHeader("set-cookie", cookies);
    res.setHeader("x-app", "echo");
    res.setHeader("connection", "keep-alive, x-upstream-hop");
    res.setHeader("x-upstream-hop", "1");
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, size }));
  });
}

beforeAll(async () => {
  server = await startServer({}, { routeTable: routes });
  port = new URL(server.url).port;
  echo = await startUpstream(echoRequest);
  attachEcho(echo.server);
  routes.targets.set("echo", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: echo.port }] });
});
afterAll(async () => {
  await server?.close();
  await echo?.close();
});

describe("Host routing", () => {
  it("sends <slug>.<APPS_DOMAIN> on any port and in any case to the app, even for the platform's own paths", async () => {
    for (const host of [`echo.localhost:${port}`, "ECHO.LocalHost", `echo.localhost.:${port}`]) {
      for (const path of ["/api/openapi.json", "/graphql", "/oauth/authorize", "/"]) {
        const res = await request(server.url, host, path);
        expect(res.status, `${host}${path}`).toBe(200);
        expect(JSON.parse(res.body).url).toBe(path);
      }
    }
  });

  it("gives app answers none of the platform's security headers or cookies, and drops app cookies for other domains", async () => {
    const res = await request(server.url, `echo.localhost:${port}`, "/api/auth/signup", { method: "POST", body: "{}" });
    expect(res.headers["x-app"]).toBe("echo");
    expect(res.headers["set-cookie"]).toEqual(["app=1; Path=/", "own=1; domain=.Echo.localhost"]);
    for (const header of ["x-frame-options", "referrer-policy", "cross-origin-opener-policy", "ratelimit-limit"]) {
      expect(res.headers[header], header).toBeUndefined();
    }
    const single = await request(server.url, `echo.localhost:${port}`, "/login?one-cookie");
    expect(single.status).toBe(200);
    expect(single.headers["set-cookie"]).toEqual(["only=1; Path=/"]);
  });

  it("leaves the platform's hosts (PUBLIC_URL's and loopback names) to the platform", async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`, "[::1]", `[::1]:${port}`]) {
      const res = await request(server.url, host, "/api/openapi.json");
      expect(res.status, host).toBe(200);
      expect(JSON.parse(res.body).openapi, host).toMatch(/^3\./);
      expect(res.headers["x-frame-options"]).toBe("DENY");
    }
  });

  it("answers an unknown app, a label that is no slug, or any host that is no platform's, with a 404 page that never reaches the platform", async () => {
    for (const host of ["ghost.localhost", "bad_label.localhost", `-x.localhost:${port}`, "a.echo.localhost", "echo.localhost.example.com", "203.0.113.7", "[2001:db8::1]:80"]) {
      const res = await request(server.url, host, "/api/openapi.json");
      expect(res.status, host).toBe(404);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.body).toContain("No app answers at this address");
      expect(res.headers["x-frame-options"]).toBeUndefined();
    }
  });
});

describe("a failing route table", () => {
  it("answers 500 (HTTP) and refuses the handshake (WebSocket) without taking the server down", async () => {
    const lookup = routes.lookup;
    routes.lookup = (slug) => {
      if (slug === "broken") throw new Error("route table failed");
      return lookup.call(routes, slug);
    };
    try {
      const res = await request(server.url, "broken.localhost", "/");
      expect(res.status).toBe(500);
      expect(res.body).not.toContain("route table failed");
      const ws = new WebSocket(server.url.replace(/^http/, "ws"), { headers: { host: "broken.localhost" } });
      expect(await new Promise((resolve) => ws.on("unexpected-response", (_req, r) => resolve(r.statusCode)))).toBe(500);
      expect((await request(server.url, "echo.localhost", "/")).status).toBe(200);
    } finally {
      routes.lookup = lookup;
    }
  });
});

describe("HTTP proxy", () => {
  it("overwrites X-Forwarded-For/Proto/Host, keeps Host, and drops hop-by-hop headers both ways", async () => {
    const res = await request(server.url, `echo.localhost:${port}`, "/headers?x=1", {
      headers: {
        "x-forwarded-for": "6.6.6.6",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "evil.example",
        forwarded: "for=6.6.6.6",
        "x-real-ip": "6.6.6.6",
        connection: "keep-alive, x-hop",
        "x-hop": "secret",
        te: "trailers",
        "x-custom": "kept",
      },
    });
    const { headers, url } = JSON.parse(res.body);
    expect(url).toBe("/headers?x=1");
    expect(headers).toMatchObject({
      host: `echo.localhost:${port}`,
      "x-forwarded-for": "127.0.0.1",
      "x-forwarded-proto": "http",
      "x-forwarded-host": `echo.localhost:${port}`,
      "x-custom": "kept",
    });
    for (const header of ["forwarded", "x-real-ip", "x-hop", "te"]) expect(headers[header], header).toBeUndefined();
    expect(res.headers["x-upstream-hop"]).toBeUndefined();
    expect(res.headers["keep-alive"]).not.toBe("timeout=5"); // the upstream's; the router's own connection has its own
  });

  it("passes on the final answer after an informational 103 Early Hints", async () => {
    const app = await startUpstream((_req, res) => {
      res.writeEarlyHints({ link: "</style.css>; rel=preload; as=style" });
      res.end("final");
    });
    routes.targets.set("hints", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: app.port }] });
    try {
      const res = await request(server.url, "hints.localhost", "/");
      expect([res.status, res.body]).toEqual([200, "final"]);
    } finally {
      await app.close();
    }
  });

  it("reuses its connections to the app (HTTP/1.1 keep-alive)", async () => {
    const app = await startUpstream((_req, res) => res.end("ok"));
    routes.targets.set("pooled", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: app.port }] });
    try {
      for (let i = 0; i < 10; i += 1) expect((await request(server.url, "pooled.localhost", `/${i}`)).body).toBe("ok");
      expect(app.connections).toBe(1);
    } finally {
      await app.close();
    }
  });

  it("streams a slow chunked response: the first chunk arrives before the app writes the second", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const app = await startUpstream(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first;");
      await released;
      res.end("second");
    });
    routes.targets.set("slow", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: app.port }] });
    try {
      const { hostname, port: p } = new URL(server.url);
      const body = await new Promise<string>((resolve, reject) => {
        http
          .get({ hostname, port: p, path: "/", headers: { host: "slow.localhost" }, agent: false }, (res) => {
            let text = "";
            res.on("data", (chunk: Buffer) => {
              text += chunk.toString();
              if (text === "first;") release();
            });
            res.on("end", () => resolve(text));
          })
          .on("error", reject);
      });
      expect(body).toBe("first;second");
    } finally {
      release();
      await app.close();
    }
  });

  it("streams a large upload: the app sees its first bytes before the client has sent the rest", async () => {
    const app = await startUpstream((req, res) => {
      let size = 0;
      res.writeHead(200, { "content-type": "text/plain" });
      req.once("data", () => res.write("started;"));
      req.on("data", (chunk: Buffer) => (size += chunk.length));
      req.on("end", () => res.end(String(size)));
    });
    routes.targets.set("upload", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: app.port }] });
    const chunk = Buffer.alloc(1024 * 1024, 120);
    try {
      const { hostname, port: p } = new URL(server.url);
      const body = await new Promise<string>((resolve, reject) => {
        const req = http.request({ hostname, port: p, method: "POST", path: "/upload", headers: { host: "upload.localhost" }, agent: false }, (res) => {
          let text = "";
          res.on("data", (data: Buffer) => {
            text += data.toString();
            // Only once the app has answered to the first megabyte does the client send the other 19.
            if (text === "started;") {
              for (let i = 0; i < 19; i += 1) req.write(chunk);
              req.end();
            }
          });
          res.on("end", () => resolve(text));
        });
        req.on("error", reject);
        req.flushHeaders();
        req.write(chunk);
      });
      expect(body).toBe(`started;${20 * chunk.length}`);
    } finally {
      await app.close();
    }
  });

  it("answers 502 with a page when the app does not listen", async () => {
    routes.targets.set("down", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: await freePort() }] });
    const res = await request(server.url, "down.localhost", "/");
    expect(res.status).toBe(502);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.body).toContain("The app did not answer");
    expect(res.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
  });

  it("answers 504 when the app takes longer than the headers timeout", async () => {
    const app = await startUpstream(() => {});
    const router = createRouter({
      appsDomain: "localhost",
      publicUrl: "http://127.0.0.1",
      routes: { lookup: () => ({ kind: "proxy", upstreams: [{ host: "127.0.0.1", port: app.port }] }) },
      timeouts: { headersMs: 200 },
    });
    const front = router.serverFactory((_req, res) => res.end("platform"), {});
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(front.address() as { port: number }).port}`;
      const res = await request(base, "sleepy.localhost", "/");
      expect(res.status).toBe(504);
      expect(res.body).toContain("took too long");
      expect((await request(base, "127.0.0.1", "/")).body).toBe("platform");
    } finally {
      await router.close();
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
      await app.close();
    }
  });
});

describe("shutdown", () => {
  it("closes the server at once, cutting a response still streaming from an app", async () => {
    const app = await startUpstream((_req, res) => res.writeHead(200, { "content-type": "text/event-stream" }).write("data: 1\n\n"));
    const own = new TestRoutes();
    own.targets.set("stream", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: app.port }] });
    const other = await startServer({}, { routeTable: own });
    try {
      const { hostname, port: p } = new URL(other.url);
      const cut = new Promise<void>((resolve, reject) => {
        http
          .get({ hostname, port: p, path: "/", headers: { host: "stream.localhost" }, agent: false }, (res) => {
            res.once("data", () => resolve());
            res.on("error", () => {});
          })
          .on("error", reject);
      });
      await cut;
      const started = Date.now();
      await other.slipway.close();
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await other.close().catch(() => {});
      await app.close();
    }
  });
});

describe("status pages", () => {
  const statuses = {
    CREATED: "has not been deployed yet",
    DEPLOYING: "is being deployed",
    STOPPED: "is stopped",
    CRASHED: "stopped unexpectedly",
    FAILED: "deployment failed",
  } as const;

  for (const [status, message] of Object.entries(statuses)) {
    it(`answers a ${status} app with 503 and a page saying so`, async () => {
      const slug = `app-${status.toLowerCase()}`;
      routes.targets.set(slug, { kind: "unavailable", slug, status: status as keyof typeof statuses });
      const res = await request(server.url, `${slug}.localhost:${port}`, "/api/me");
      expect(res.status).toBe(503);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(res.headers["retry-after"]).toBe(status === "DEPLOYING" ? "10" : undefined);
      expect(res.body).toContain(message);
      expect(res.headers["set-cookie"]).toBeUndefined();

      const head = await request(server.url, `${slug}.localhost`, "/", { method: "HEAD" });
      expect([head.status, head.body]).toEqual([503, ""]);
    });
  }
});

describe("WebSocket upgrades", () => {
  function connect(host: string, path: string, protocol?: string): WebSocket {
    return new WebSocket(server.url.replace(/^http/, "ws") + path, protocol, { headers: { host } });
  }

  function refusal(ws: WebSocket): Promise<number> {
    return new Promise((resolve, reject) => {
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode!));
      ws.on("open", () => reject(new Error("the handshake was accepted")));
    });
  }

  it("pipes an app host's WebSocket to the app, /graphql included", async () => {
    for (const path of ["/socket", "/graphql"]) {
      const ws = connect(`echo.localhost:${port}`, path);
      await new Promise((resolve, reject) => ws.on("open", resolve).on("error", reject));
      const replies: string[] = [];
      const done = new Promise<void>((resolve) =>
        ws.on("message", (data) => {
          replies.push(data.toString());
          if (replies.length === 2) resolve();
        }),
      );
      ws.send("one");
      ws.send("two");
      await done;
      expect(replies).toEqual([`${path} 127.0.0.1 one`, `${path} 127.0.0.1 two`]);
      ws.close();
    }
  });

  it("keeps graphql-ws on the platform's /graphql", async () => {
    const ws = connect(`127.0.0.1:${port}`, "/graphql", "graphql-transport-ws");
    await new Promise((resolve, reject) => ws.on("open", resolve).on("error", reject));
    ws.send(JSON.stringify({ type: "connection_init" }));
    const reply = await new Promise<string>((resolve) => ws.once("message", (data) => resolve(data.toString())));
    expect(JSON.parse(reply)).toEqual({ type: "connection_ack" });
    ws.close();
  });

  it("refuses other platform paths, unknown and unavailable apps, and static sites", async () => {
    routes.targets.set("ws-stopped", { kind: "unavailable", slug: "ws-stopped", status: "STOPPED" });
    routes.targets.set("ws-static", { kind: "static", root: "/nonexistent" });
    expect(await refusal(connect(`127.0.0.1:${port}`, "/api/me"))).toBe(404);
    expect(await refusal(connect("ghost.localhost", "/"))).toBe(404);
    expect(await refusal(connect("ws-stopped.localhost", "/"))).toBe(503);
    expect(await refusal(connect("ws-static.localhost", "/"))).toBe(404);
  });

  it("passes on an app's refusal, and answers 502 when the app does not listen", async () => {
    const app = await startUpstream((_req, res) => res.writeHead(401, { "content-type": "text/plain" }).end("no"));
    routes.targets.set("ws-refuses", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: app.port }] });
    routes.targets.set("ws-down", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: await freePort() }] });
    try {
      expect(await refusal(connect("ws-refuses.localhost", "/"))).toBe(401);
      expect(await refusal(connect("ws-down.localhost", "/"))).toBe(502);
    } finally {
      await app.close();
    }
  });
});

afterAll(() => keepAlive.destroy());
