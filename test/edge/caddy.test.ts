// EDGE=caddy with a real Caddy (Debian's `caddy`, started here on free ports with an admin endpoint on loopback)
// and EDGE_TLS=internal: an app answers on its host and on a verified custom domain over HTTPS, resolved to
// 127.0.0.1 by the client's own lookup (never /etc/hosts), with a certificate chaining to Caddy's local CA; HTTP
// redirects to HTTPS; status pages are those of the in-process router (unknown hosts included); a WebSocket
// reaches the app over wss; a domain removal stops routing; a redeploy under load answers every request with no
// request sent again (the switch reaches Caddy by DNS, no configuration load closes a connection); a redeploy or
// a scale change loads no configuration; a restarted Caddy gets the route table back.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import os from "node:os";
import path from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { configWarnings, ConfigError, loadConfig } from "../../server/config.ts";
import { adminRequest, createCaddyEdge } from "../../server/platform/edge/caddy.ts";
import { deploy, FIXTURES, requestApp, uploadZip, waitFor, waitForDeployment, webInstances, zipFolder } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { freePort, startServer, type TestServer } from "../helpers/server.ts";

const HAS_CADDY = spawnSync("caddy", ["version"], { stdio: "ignore" }).status === 0;
if (!HAS_CADDY) console.warn("test/edge/caddy.test.ts: Caddy tests skipped: `caddy` is not installed (apt-get install caddy)");

describe("EDGE configuration", () => {
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: "/tmp/x", ...env });

  it("accepts a loopback or unix socket admin endpoint and refuses anything else at boot", () => {
    expect(load({ EDGE: "caddy" }).edge).toEqual({ kind: "caddy", admin: { host: "127.0.0.1", port: 2019 }, tls: "acme", httpPort: 80, httpsPort: 443, cdnFiles: "caddy" });
    expect(load({ EDGE: "caddy", EDGE_CDN_FILES: "slipway" }).edge?.cdnFiles).toBe("slipway");
    expect(() => load({ EDGE: "caddy", EDGE_CDN_FILES: "nginx" })).toThrow(/EDGE_CDN_FILES: expected caddy/);
    expect(load({ EDGE: "caddy", CADDY_ADMIN: "[::1]:2020", EDGE_TLS: "internal" }).edge).toMatchObject({ admin: { host: "::1", port: 2020 }, tls: "internal" });
    expect(load({ EDGE: "caddy", CADDY_ADMIN: "localhost:2019" }).edge?.admin).toEqual({ host: "localhost", port: 2019 });
    expect(load({ EDGE: "caddy", CADDY_ADMIN: "/run/caddy/admin.sock" }).edge?.admin).toEqual({ socketPath: "/run/caddy/admin.sock" });
    expect(load({ EDGE: "caddy", CADDY_ADMIN: "unix//run/caddy/admin.sock" }).edge?.admin).toEqual({ socketPath: "/run/caddy/admin.sock" });
    expect(load({}).edge).toBeUndefined();
    for (const admin of ["0.0.0.0:2019", "10.0.0.5:2019", "example.com:2019", "127.0.0.1", "127.0.0.1:99999", "unix/relative.sock", ":2019"]) {
      expect(() => load({ EDGE: "caddy", CADDY_ADMIN: admin }), admin).toThrow(/CADDY_ADMIN: expected a loopback address/);
    }
    expect(() => load({ EDGE: "nginx" })).toThrow(ConfigError);
    expect(() => load({ EDGE_TLS: "self" })).toThrow(/EDGE_TLS: expected acme/);
    expect(() => load({ EDGE_HTTPS_PORT: "0" })).toThrow(/EDGE_HTTPS_PORT/);
  });

  it("warns at boot when the edge serves HTTPS but PUBLIC_URL is http", () => {
    const apps = { APPS_DOMAIN: "example-apps.net" };
    expect(configWarnings(load({ ...apps, EDGE: "caddy", PUBLIC_URL: "http://example.com" }))).toEqual([expect.stringMatching(/^EDGE=caddy serves the platform over HTTPS, but PUBLIC_URL/)]);
    expect(configWarnings(load({ ...apps, EDGE: "caddy", PUBLIC_URL: "https://example.com" }))).toEqual([]);
    expect(configWarnings(load({ ...apps, PUBLIC_URL: "http://example.com" }))).toEqual([]);
  });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  issuer?: string;
  /** Sent on a kept-alive connection that had answered before. */
  reused: boolean;
}

/** Every hostname resolves to 127.0.0.1, for this client only (as a DNS record pointing at the server would). */
const toLoopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: "127.0.0.1", family: 4 }]);
  else callback(null, "127.0.0.1", 4);
};

/**
 * A GET through the agent, sent again once when its connection was closed before any answer (RFC 9110 §9.2.2:
 * an idempotent request may be retried; browsers do), each resend noted in `resent` with its error. A
 * configuration load shuts Caddy's replaced server down (Go's http.Server.Shutdown), which closes its idle
 * kept-alive client connections at once: a request written into one at that instant is never read (the client
 * sees ECONNRESET / "socket hang up", never an answer).
 */
async function fetchRetrying(url: string, options: { ca: string; agent: http.Agent }, resent: string[]): Promise<Answer> {
  try {
    return await fetchVia(url, options);
  } catch (error) {
    const failure = error as Error & { unanswered?: boolean; reusedSocket?: boolean; code?: string };
    if (!failure.unanswered) throw error;
    resent.push(`${new Date().toISOString()} ${failure.message} ${failure.code} (reused: ${failure.reusedSocket})`);
    // On a new connection: every kept-alive one may have been closed by the same load.
    return fetchVia(url, { ca: options.ca });
  }
}

function fetchVia(url: string, options: { ca?: string; agent?: http.Agent; method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      target,
      { method: options.method ?? "GET", headers: options.headers, lookup: toLoopback, agent: options.agent ?? false, ...(secure ? { ca: options.ca, ...(isIP(target.hostname) ? {} : { servername: target.hostname }) } : {}) },
      (res) => {
        const socket = res.socket as TLSSocket;
        const issuer = secure ? socket.getPeerCertificate?.()?.issuer?.CN : undefined;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString(), issuer, reused: req.reusedSocket }));
        res.on("error", reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error("timed out")));
    // Only a request whose connection failed before any answer may be sent again.
    req.on("error", (error) => reject(Object.assign(error, { unanswered: !answered, reusedSocket: req.reusedSocket })));
    let answered = false;
    req.on("response", () => (answered = true));
    req.end(options.body);
  });
}

describe.skipIf(!HAS_CADDY)("EDGE=caddy with a real Caddy (EDGE_TLS=internal)", () => {
  let server: TestServer;
  let owner: Client;
  let caddy: ChildProcess;
  let caddyDir: string;
  let admin: { host: string; port: number };
  let ports: { http: number; https: number };
  let ca: string;
  let slug: string;
  const HOSTS = ["shop.example.test", "gone.example.test"];
  const https_ = (host: string, pathname = "/") => `https://${host}:${ports.https}${pathname}`;
  const http_ = (host: string, pathname = "/") => `http://${host}:${ports.http}${pathname}`;
  const node = (text: string) => ({
    "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
    "server.js": `require("http").createServer((q, s) => s.end(${JSON.stringify(text)})).listen(process.env.PORT);`,
  });

  /** Waits until the domain's certificate field says Caddy offers a certificate for it (its local CA's). */
  async function certificateIssued(hostname: string): Promise<void> {
    await waitFor(
      async () => {
        const domains = (await owner.get(`/api/apps/${slug}/domains`)).body as { hostname: string; certificate: string }[];
        return /^issued by Caddy Local Authority - ECC Intermediate, valid until \d{4}-\d\d-\d\dT\d\d:\d\dZ$/.test(domains.find((d) => d.hostname === hostname)?.certificate ?? "");
      },
      20_000,
      `a certificate for ${hostname}`,
    );
  }

  /** `caddy run` with nothing but its admin endpoint: Slipway loads everything else. */
  async function startCaddy(): Promise<void> {
    fs.writeFileSync(path.join(caddyDir, "boot.json"), JSON.stringify({ admin: { listen: `127.0.0.1:${admin.port}` } }));
    const env = { ...process.env, HOME: caddyDir, XDG_DATA_HOME: path.join(caddyDir, "data"), XDG_CONFIG_HOME: path.join(caddyDir, "config") };
    caddy = spawn("caddy", ["run", "--config", path.join(caddyDir, "boot.json")], { env, stdio: ["ignore", "ignore", fs.openSync(path.join(caddyDir, "caddy.log"), "a")] });
    await waitFor(() => adminRequest(admin, "GET", "/config/").then((r) => r.status === 200, () => false), 15_000, "Caddy's admin API");
  }

  /** Lines of Caddy's log that contain `text`. */
  function caddyLogLines(text: string): string[] {
    return fs.readFileSync(path.join(caddyDir, "caddy.log"), "utf8").split("\n").filter((line) => line.includes(text));
  }
  /** Configuration loads Caddy was asked for (its admin log has one line per request). */
  const loadsInCaddyLog = () => caddyLogLines('"uri":"/load"').length;

  async function stopCaddy(): Promise<void> {
    if (!caddy || caddy.exitCode !== null) return;
    const exited = new Promise((resolve) => caddy.once("exit", resolve));
    caddy.kill("SIGTERM");
    await exited;
  }

  beforeAll(async () => {
    caddyDir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-caddy-"));
    admin = { host: "127.0.0.1", port: await freePort() };
    ports = { http: await freePort(), https: await freePort() };
    await startCaddy();
    server = await startServer({
      EDGE: "caddy",
      EDGE_TLS: "internal",
      CADDY_ADMIN: `127.0.0.1:${admin.port}`,
      EDGE_HTTP_PORT: String(ports.http),
      EDGE_HTTPS_PORT: String(ports.https),
      DEFAULT_REQUESTS_PER_MINUTE: "100000",
      // The HTTP challenge is fetched through Caddy's HTTP port (EDGE_HTTP_PORT), as on port 80 in production.
      DOMAIN_VERIFY_RESOLVE: HOSTS.map((h) => `${h}:127.0.0.1`).join(","),
    });
    owner = new Client(server.url);
    await owner.signup();
    const root = await adminRequest(admin, "GET", "/pki/ca/local");
    ca = JSON.parse(root.body).root_certificate;
    slug = `edge-${process.pid}`;
    expect((await owner.post("/api/apps", { slug })).status).toBe(201);
    expect((await deploy(owner, slug, await zipFolder(path.join(FIXTURES, "node-plain")))).status).toBe("LIVE");
  });

  afterAll(async () => {
    try {
      await server?.close();
    } finally {
      await stopCaddy();
      if (process.env.KEEP_CADDY_DIR) console.log("caddy dir", caddyDir);
      else fs.rmSync(caddyDir, { recursive: true, force: true });
    }
  });

  it("serves the app host over HTTPS with a certificate from Caddy's local CA, and redirects HTTP to HTTPS", async () => {
    const res = await fetchVia(https_(`${slug}.localhost`), { ca });
    expect(res).toMatchObject({ status: 200, body: "hello from node-plain\n" });
    expect(res.issuer).toMatch(/Caddy Local Authority/);
    // Without Caddy's root the chain is not trusted: the certificate is the local CA's, not a public one.
    await expect(fetchVia(https_(`${slug}.localhost`))).rejects.toThrow(/certificate/i);
    const redirect = await fetchVia(http_(`${slug}.localhost`, "/a/b?c=1"));
    expect(redirect.status).toBe(308);
    expect(redirect.headers.location).toBe(https_(`${slug}.localhost`, "/a/b?c=1"));
    // The app host gets no HSTS (custom domains do): it is the platform's domain.
    expect(res.headers["strict-transport-security"]).toBeUndefined();
  });

  it("serves the platform's own host (PUBLIC_URL's) through Caddy over HTTPS", async () => {
    const res = await fetchVia(`https://127.0.0.1:${ports.https}/api/openapi.json`, { ca });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).openapi).toMatch(/^3\./);
    expect(res.issuer).toMatch(/Caddy Local Authority/);
  });

  it("records the client's address from Caddy, never an X-Forwarded-For a client sent", async () => {
    const { email, password } = await new Client(server.url).signup();
    const signIn = await fetchVia(`https://127.0.0.1:${ports.https}/api/auth/login`, {
      ca,
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
      body: JSON.stringify({ email, password }),
    });
    expect(signIn.status).toBe(200);
    const cookie = String(signIn.headers["set-cookie"]).split(";")[0];
    const sessions = await fetchVia(`https://127.0.0.1:${ports.https}/api/me/sessions`, { ca, headers: { cookie } });
    const current = (JSON.parse(sessions.body) as { current: boolean; address: string }[]).find((s) => s.current);
    expect(current?.address).toBe("127.0.0.1");
  });

  it("routes a custom domain once verified (the challenge answered through Caddy), with HSTS", async () => {
    const added = await owner.post(`/api/apps/${slug}/domains`, { hostname: "shop.example.test" });
    expect(added.status).toBe(201);
    expect(added.body.certificate).toBe("none");
    // Pending: Caddy passes the ownership challenge to Slipway over HTTP, but has no certificate for the host yet.
    const challenge = await fetchVia(http_("shop.example.test", `/.well-known/slipway-challenge/${added.body.txtRecord.value}`));
    expect(challenge).toMatchObject({ status: 200, body: added.body.txtRecord.value });
    await expect(fetchVia(https_("shop.example.test"), { ca })).rejects.toThrow();

    const verified = await owner.post(`/api/apps/${slug}/domains/shop.example.test/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.verified).toBe(true);
    // Caddy issues the certificate once it has the route; the domain shows what Caddy's HTTPS port offers.
    expect(verified.body.certificate).toMatch(/^(pending: Caddy is issuing it from its local CA|issued by Caddy Local Authority - ECC Intermediate, valid until \d{4}-\d\d-\d\dT\d\d:\d\dZ)$/);
    await certificateIssued("shop.example.test");
    const res = await fetchVia(https_("shop.example.test"), { ca });
    expect(res).toMatchObject({ status: 200, body: "hello from node-plain\n" });
    expect(res.issuer).toMatch(/Caddy Local Authority/);
    expect(res.headers["strict-transport-security"]).toBe("max-age=31536000");
    const redirect = await fetchVia(http_("shop.example.test", "/x"));
    expect([redirect.status, redirect.headers.location]).toEqual([308, https_("shop.example.test", "/x")]);
  });

  it("pipes a WebSocket to the app through Caddy (wss, the Host kept, both directions)", async () => {
    const wsSlug = `edge-ws-${process.pid}`;
    expect((await owner.post("/api/apps", { slug: wsSlug })).status).toBe(201);
    const app = `
      const http = require("http");
      const server = http.createServer((q, s) => s.end("http"));
      server.on("upgrade", (req, socket) => {
        const accept = require("crypto").createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
        socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " + accept + "\\r\\n\\r\\n");
        let buffered = Buffer.alloc(0);
        socket.on("data", (chunk) => {
          buffered = Buffer.concat([buffered, chunk]);
          // Small masked text frames (< 126 bytes), echoed unmasked with the handshake's Host and path in front.
          while (buffered.length >= 6 && buffered.length >= 6 + (buffered[1] & 0x7f)) {
            const len = buffered[1] & 0x7f, mask = buffered.subarray(2, 6), data = Buffer.from(buffered.subarray(6, 6 + len));
            buffered = buffered.subarray(6 + len);
            for (let i = 0; i < data.length; i++) data[i] ^= mask[i % 4];
            const reply = Buffer.from(req.headers.host + " " + req.url + " " + data.toString());
            socket.write(Buffer.concat([Buffer.from([0x81, reply.length]), reply]));
          }
        });
      });
      server.listen(process.env.PORT);`;
    expect((await deploy(owner, wsSlug, await zipFolder(null, { "package.json": JSON.stringify({ name: "ws", version: "1.0.0" }), "server.js": app }))).status).toBe("LIVE");
    const host = `${wsSlug}.localhost:${ports.https}`;
    const ws = new WebSocket(`wss://${host}/socket?x=1`, { ca, lookup: toLoopback });
    const replies: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => ["one", "two"].forEach((m) => ws.send(m)));
      ws.on("message", (data) => replies.push(String(data)) === 2 && resolve());
      ws.once("error", reject);
    });
    const issuer = (ws as unknown as { _socket: TLSSocket })._socket.getPeerCertificate().issuer.CN;
    ws.close();
    expect(replies).toEqual([`${host} /socket?x=1 one`, `${host} /socket?x=1 two`]);
    expect(issuer).toMatch(/Caddy Local Authority/);
  });

  it("shows the same status pages as the in-process router: 503 for a stopped app, 404 for an unknown host", async () => {
    expect((await owner.post(`/api/apps/${slug}/stop`)).status).toBe(200);
    const direct = await requestApp(server.url, `${slug}.localhost`);
    expect(direct.status).toBe(503);
    for (const url of [https_(`${slug}.localhost`), https_("shop.example.test")]) {
      const res = await fetchVia(url, { ca });
      expect([res.status, res.body], url).toEqual([503, direct.body]);
    }
    // An app-shaped host no app has: the "No app here" 404 page, as in-process.
    const noAppDirect = await requestApp(server.url, "no-such-app.localhost");
    expect(noAppDirect.status).toBe(404);
    const noApp = await fetchVia(http_("no-such-app.localhost"));
    expect([noApp.status, noApp.body]).toEqual([404, noAppDirect.body]);
    // Any other hostname (no app's, not PUBLIC_URL's): the same page, never the platform's API or dashboard.
    for (const pathname of ["/", "/api/me"]) {
      const otherDirect = await requestApp(server.url, "nobody.example.test", pathname);
      expect([otherDirect.status, otherDirect.body]).toEqual([404, noAppDirect.body]);
      const other = await fetchVia(http_("nobody.example.test", pathname));
      expect([other.status, other.body, other.headers["content-type"]]).toEqual([404, noAppDirect.body, "text/html; charset=utf-8"]);
    }

    expect((await owner.post(`/api/apps/${slug}/restart`)).status).toBe(200);
    await waitFor(async () => (await fetchVia(https_(`${slug}.localhost`), { ca })).status === 200, 30_000, "the app to answer again");
  });

  it("redeploys under load through Caddy without a failed request", async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 4 });
    const seen: string[] = [];
    const resent: string[] = [];
    let stop = false;
    const workers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const res = await fetchRetrying(https_(`${slug}.localhost`), { ca, agent }, resent).catch((error: Error & { reusedSocket?: boolean; code?: string }) => ({ status: 0, body: `${error.message} ${error.code} (reused: ${error.reusedSocket})` }));
        seen.push(res.status === 200 ? res.body : `FAILED ${res.status} ${res.body.slice(0, 200)}`);
      }
    });
    try {
      await waitFor(async () => seen.length > 20, 10_000, "requests under way");
      const upload = await uploadZip(owner, slug, await zipFolder(null, node("v2")));
      expect(upload.status).toBe(202);
      expect((await waitForDeployment(owner, slug, upload.body.id)).status).toBe("LIVE");
      const after = seen.length;
      await waitFor(async () => seen.length > after + 20, 10_000, "requests after the switch");
    } finally {
      stop = true;
      await Promise.all(workers);
      agent.destroy();
    }
    expect(seen.filter((s) => s.startsWith("FAILED"))).toEqual([]);
    expect(seen.at(-1)).toBe("v2");
    expect(new Set(seen)).toEqual(new Set(["hello from node-plain\n", "v2"]));
    // No connection closed unanswered: the switch reached Caddy by DNS, without a configuration load.
    expect(resent).toEqual([]);
  });

  it("switches a redeploy and a scale change by DNS: no configuration load, kept-alive connections stay open", async () => {
    const dnsSlug = `edge-dns-${process.pid}`;
    const instance = (version: string) => ({
      "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
      "server.js": `const id = "${version}:" + require("crypto").randomUUID(); require("http").createServer((q, s) => s.end(id)).listen(process.env.PORT);`,
    });
    expect((await owner.post("/api/apps", { slug: dnsSlug })).status).toBe(201);
    expect((await deploy(owner, dnsSlug, await zipFolder(null, instance("v1")))).status).toBe("LIVE");
    const config = async () => (await adminRequest(admin, "GET", "/config/")).body;
    const before = { config: await config(), loads: loadsInCaddyLog() };
    // One connection, kept alive throughout: a configuration load would close it while idle.
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () => fetchVia(https_(`${dnsSlug}.localhost`), { ca, agent });
    try {
      expect((await get()).body).toMatch(/^v1:/);
      const upload = await uploadZip(owner, dnsSlug, await zipFolder(null, instance("v2")));
      expect((await waitForDeployment(owner, dnsSlug, upload.body.id)).status).toBe("LIVE");
      // The switch reached Caddy before the deployment was LIVE.
      const switched = await get();
      expect([switched.body, switched.reused]).toEqual([expect.stringMatching(/^v2:/), true]);

      expect((await owner.request("PATCH", `/api/apps/${dnsSlug}`, { json: { instances: 2 } })).status).toBe(200);
      await waitFor(async () => {
        const processes = webInstances((await owner.get(`/api/apps/${dnsSlug}`)).body);
        return processes.length === 2 && processes.every((p) => p.state === "HEALTHY");
      }, 30_000, "2 healthy instances");
      // The API answered before the instance started: Caddy looks the app up again within its refresh (250 ms).
      const ids = new Set<string>();
      await waitFor(async () => {
        const res = await get();
        expect([res.status, res.reused]).toEqual([200, true]);
        return ids.add(res.body).size === 2;
      }, 5_000, "both instances through Caddy");
      expect([...ids].map((id) => id.slice(0, 3))).toEqual(["v2:", "v2:"]);
    } finally {
      agent.destroy();
    }
    expect({ config: await config(), loads: loadsInCaddyLog() }).toEqual(before);
    // Every lookup answered: Caddy never fell back to its static upstream (Slipway, which would proxy in-process).
    expect(caddyLogLines("failed getting dynamic upstreams")).toEqual([]);
  });

  it("balances a scaled app across its healthy instances through Caddy, and drops one that stops", async () => {
    const scaled = `edge-scale-${process.pid}`;
    const app = {
      "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
      "server.js": `const id = require("crypto").randomUUID(); require("http").createServer((q, s) => s.end(id)).listen(process.env.PORT);`,
    };
    expect((await owner.post("/api/apps", { slug: scaled })).status).toBe(201);
    expect((await deploy(owner, scaled, await zipFolder(null, app))).status).toBe("LIVE");
    expect((await owner.request("PATCH", `/api/apps/${scaled}`, { json: { instances: 2 } })).status).toBe(200);
    await waitFor(async () => {
      const processes = webInstances((await owner.get(`/api/apps/${scaled}`)).body);
      return processes.length === 2 && processes.every((p) => p.state === "HEALTHY");
    }, 30_000, "2 healthy instances");
    const config = JSON.parse((await adminRequest(admin, "GET", "/config/apps/http/servers/slipway/routes")).body) as { match?: { host: string[] }[]; handle: { upstreams?: unknown[]; dynamic_upstreams?: unknown; load_balancing?: unknown }[] }[];
    const route = config.find((r) => r.match?.[0].host.includes(`${scaled}.localhost`))!;
    // The instances come from DNS; the one static upstream is Slipway, used only when a lookup fails.
    expect(route.handle[0].dynamic_upstreams).toMatchObject({ source: "srv", name: `${scaled}.apps.slipway.internal.` });
    expect(route.handle[0].upstreams).toEqual([{ dial: `127.0.0.1:${new URL(server.url).port}` }]);
    expect(route.handle[0].load_balancing).toMatchObject({ selection_policy: { policy: "least_conn" } });
    const bodies = new Set<string>();
    // Fresh connections: least_conn sees no request in flight, and picks among the instances at random.
    for (let i = 0; i < 30 && bodies.size < 2; i++) {
      const res = await fetchVia(https_(`${scaled}.localhost`), { ca });
      expect(res.status).toBe(200);
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(2);
    expect((await owner.request("PATCH", `/api/apps/${scaled}`, { json: { instances: 1 } })).status).toBe(200);
    await waitFor(async () => webInstances((await owner.get(`/api/apps/${scaled}`)).body).length === 1, 10_000, "1 instance");
    // The removed instance leaves Caddy's rotation within its DNS refresh, and stops only after (every answer 200).
    const last: string[] = [];
    await waitFor(async () => {
      const res = await fetchVia(https_(`${scaled}.localhost`), { ca });
      expect(res.status).toBe(200);
      last.push(res.body);
      return last.length >= 10 && new Set(last.slice(-10)).size === 1;
    }, 10_000, "one instance left in rotation");
  });

  it("stops routing a removed domain", async () => {
    expect((await owner.post(`/api/apps/${slug}/domains`, { hostname: "gone.example.test" })).status).toBe(201);
    expect((await owner.post(`/api/apps/${slug}/domains/gone.example.test/verify`)).status).toBe(200);
    await certificateIssued("gone.example.test");
    expect((await fetchVia(https_("gone.example.test"), { ca })).body).toBe("v2");
    expect((await owner.request("DELETE", `/api/apps/${slug}/domains/gone.example.test`)).status).toBe(204);
    // Over HTTPS the host is no longer the app's: no certificate (the handshake fails), or Caddy's cached one and
    // then the "No app here" page from Slipway, never the app or the dashboard.
    const unknown = await requestApp(server.url, "no-such-app.localhost");
    const after = await fetchVia(https_("gone.example.test"), { ca }).catch((error: Error) => ({ status: 0, body: error.message }));
    if (after.status !== 0) expect([after.status, after.body]).toEqual([404, unknown.body]);
    else expect(after.body).toMatch(/alert|certificate|disconnected|ECONNRESET|socket/i);
    // Over HTTP it is no longer redirected: the "No app here" page, as in-process, never the dashboard.
    for (const pathname of ["/", "/api/me"]) {
      expect((await requestApp(server.url, "gone.example.test", pathname)).body, pathname).toBe(unknown.body);
      const plain = await fetchVia(http_("gone.example.test", pathname));
      expect([plain.status, plain.body], pathname).toEqual([404, unknown.body]);
    }
    // The other domain still routes.
    expect((await fetchVia(https_("shop.example.test"), { ca })).body).toBe("v2");
  });

  it("gives a restarted Caddy the whole route table again", async () => {
    await stopCaddy();
    await startCaddy();
    // A fresh Caddy knows nothing until Slipway pushes: the check every few seconds notices and loads it.
    await waitFor(async () => (await fetchVia(https_("shop.example.test"), { ca }).catch(() => null))?.body === "v2", 30_000, "Caddy to route again");
  });
});

describe.skipIf(!HAS_CADDY)("the Caddy edge over a unix socket admin endpoint", () => {
  it("loads the route table and reports it held, through the socket only", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-caddy-sock-"));
    const socketPath = path.join(dir, "admin.sock");
    const app = http.createServer((_req, res) => res.end("via socket")).listen(0, "127.0.0.1");
    await new Promise((resolve) => app.once("listening", resolve));
    const appPort = (app.address() as { port: number }).port;
    fs.writeFileSync(path.join(dir, "boot.json"), JSON.stringify({ admin: { listen: `unix/${socketPath}` } }));
    const env = { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, "data"), XDG_CONFIG_HOME: path.join(dir, "config") };
    const child = spawn("caddy", ["run", "--config", path.join(dir, "boot.json")], { env, stdio: "ignore" });
    try {
      const admin = { socketPath };
      await waitFor(() => adminRequest(admin, "GET", "/config/").then((r) => r.status === 200, () => false), 15_000, "Caddy's admin socket");
      const ports = { http: await freePort(), https: await freePort() };
      const edge = createCaddyEdge(
        { kind: "caddy", admin, tls: "internal", httpPort: ports.http, httpsPort: ports.https, cdnFiles: "caddy" },
        { appsDomain: "apps.test", platformHostname: "platform.test", slipway: { host: "127.0.0.1", port: 1 }, stateDir: dir, peers: () => [] },
      );
      await edge.start();
      expect(await edge.holdsConfig()).toBe(false);
      await edge.apply({ apps: [["sock", { kind: "proxy", upstreams: [{ host: "127.0.0.1", port: appPort }] }]], domains: [] });
      expect(await edge.holdsConfig()).toBe(true);
      // The loaded configuration kept the admin endpoint on the socket.
      expect(JSON.parse((await adminRequest(admin, "GET", "/config/admin")).body)).toEqual({ listen: `unix/${socketPath}` });
      const ca = JSON.parse((await adminRequest(admin, "GET", "/pki/ca/local")).body).root_certificate;
      const res = await waitFor(() => fetchVia(`https://sock.apps.test:${ports.https}/`, { ca }).catch(() => null), 15_000, "the app through Caddy");
      expect(res.body).toBe("via socket");
      await edge.close();
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
      app.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
