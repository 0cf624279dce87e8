// The Caddy edge (EDGE=caddy). Slipway connects to a Caddy that is already running (the Debian package's
// service, or any `caddy run`) and drives it only through its admin API on a loopback address or a unix socket:
// a change of the route table that Caddy's configuration shows loads the whole JSON configuration at once (POST
// /load, atomic in Caddy, no reload gap). A change of a running app's instances only is no such change: Caddy
// finds them by DNS (caddy-dns.ts), because every load shuts Caddy's replaced servers down, closing their idle
// kept-alive client connections (a request written into one at that instant is lost unanswered). Caddy then
// obtains and renews the certificates of every host it routes (ACME, or its local CA with EDGE_TLS=internal).
//
// HTTPS server: one route per app host and verified custom domain. A running app is proxied straight to its
// healthy instances (the addresses the in-process router uses, an SRV lookup away), balanced by least
// connections, and a request that could not reach one is tried on another (Slipway's own checks take an unhealthy
// instance out of the DNS answer); when the lookup fails, Caddy proxies to Slipway, which routes the app
// in-process. Static sites, apps that sleep when idle (sleepAfterMinutes, asleep or not), stopped, crashed or never
// deployed apps go to
// Slipway, which answers them exactly as it does in-process (same status pages), as do the platform's own host
// and anything else. Custom domains get HSTS. An app's Set-Cookie loses any Domain attribute (host-only, so no
// cookie reaches a sibling app or the platform: the in-process router drops such cookies instead).
// The platform host's CDN content path, with local storage, is sent by Caddy itself after Slipway's lookup
// (caddy-cdn.ts: sendfile instead of a stream through Node).
// HTTP server: domain ownership challenges and unknown hosts go to Slipway (404 page, pending domains), every
// host Caddy has a certificate for is redirected to HTTPS; ACME HTTP challenges are answered by Caddy itself.
// A custom domain's certificate state is what Caddy's HTTPS port offers for it (a TLS handshake with its name):
// "pending: …" until a certificate valid for the name is served, then its issuer and expiry.
import http from "node:http";
import tls from "node:tls";
import type { CaddyAdmin, Config } from "../../config.ts";
import fs from "node:fs";
import path from "node:path";
import type { RouteSnapshot } from "../../hosting/routes.ts";
import { cdnEdgeRoutes } from "./caddy-cdn.ts";
import { REFRESH_MS, srvName, startUpstreamDns, type UpstreamDns } from "./caddy-dns.ts";
import type { EdgeAddresses, EdgeDriver, EdgeOptions } from "./types.ts";

type CaddyConfig = NonNullable<Config["edge"]>;
type Json = Record<string, unknown>;

const HSTS = { handler: "headers", response: { set: { "Strict-Transport-Security": ["max-age=31536000"] } } };
const SERVER = "slipway";
/**
 * Balancing across an app's instances (Caddy 2.6's fields): least connections; a dial that fails is tried on
 * another instance for up to 2 s (GET requests, and any request that never reached the app); an instance
 * that failed a request is avoided for 10 s.
 */
const SEVERAL_UPSTREAMS = {
  load_balancing: { selection_policy: { policy: "least_conn" }, try_duration: "2s", try_interval: "50ms" },
  health_checks: { passive: { fail_duration: "10s", max_fails: 1 } },
};
/**
 * How long Caddy holds a request it cannot place anywhere (no instance nor Slipway answers a dial): Slipway
 * restarting (an upgrade, a crash) stops its lookup server and its port for a few seconds while the apps keep
 * running; each retry looks the instances up again, and falls back to Slipway, so the request goes through as
 * soon as the new platform answers. Only dials are retried: a request that reached an upstream is never sent twice
 * (but a GET).
 */
const HOLD_WHILE_UNREACHABLE = { try_duration: "30s", try_interval: "100ms" };
/**
 * A platform's first load waits this long after it listens: requests Caddy held while no Slipway ran are placed
 * within a retry interval (100 ms) of its port answering, the rest of the second is room for a loaded machine, and
 * a load cancels those still waiting (Caddy ends the replaced handlers' retries) with a 502.
 */
const HELD_PLACED_MS = 1000;
/**
 * The same for instances found by DNS, whatever their number (it changes without a configuration load), holding
 * requests while nothing answers. No passive health check: Caddy 2.6 forgets a dynamic upstream's failures as
 * soon as no request uses it (caddyserver/caddy#7037), so it would not keep a failed instance out, only, under
 * load, an app's only one.
 */
const DYNAMIC_BALANCING = { selection_policy: { policy: "least_conn" }, ...HOLD_WHILE_UNREACHABLE };
/** Names Slipway's server in Caddy's configuration: its absence means Caddy lost it (restarted, or replaced). */
const EDGE_ID = "slipway-edge";

/** Caddy's form of the admin address, kept in the loaded configuration so the admin endpoint stays where it is. */
export function adminListen(admin: CaddyAdmin): string {
  if ("socketPath" in admin) return `unix/${admin.socketPath}`;
  return admin.host.includes(":") ? `[${admin.host}]:${admin.port}` : `${admin.host}:${admin.port}`;
}

/**
 * The whole Caddy configuration for a route table snapshot, sending to every instance of Slipway in `instances`
 * (sorted: each instance builds the same configuration, which Caddy then takes as unchanged); proxied apps'
 * instances come from those instances' DNS sources.
 */
export function caddyConfig(snapshot: RouteSnapshot, edge: CaddyConfig, options: EdgeOptions, instances: readonly EdgeAddresses[]): Json {
  const slipwayDials = instances.map((instance) => instance.upstream);
  const resolvers = instances.map((instance) => instance.resolver);
  const slipway = { handler: "reverse_proxy", upstreams: slipwayDials.map((address) => ({ dial: address })), load_balancing: HOLD_WHILE_UNREACHABLE };
  const domainsOf = new Map<string, string[]>();
  for (const [hostname, target] of snapshot.domains) {
    if (target.verified) domainsOf.set(target.slug, [...(domainsOf.get(target.slug) ?? []), hostname]);
  }
  // The platform's host first: it is never an app's, even when shaped like one (as in-process).
  const routes: Json[] = [
    ...(options.cdnFiles ? cdnEdgeRoutes(options.platformHostname, slipway, options.cdnFiles) : []),
    { match: [{ host: [options.platformHostname] }], handle: [slipway], terminal: true },
  ];
  const hosts: string[] = [options.platformHostname];
  for (const [slug, target] of [...snapshot.apps].sort(([a], [b]) => a.localeCompare(b))) {
    // An app that sleeps when idle goes through Slipway's router, which sees its requests (and holds them while it wakes).
    const handler = target.kind === "proxy" && !target.watched ? appHandler(target, { slug, resolvers, fallbacks: slipwayDials }) : slipway;
    const own = `${slug}.${options.appsDomain}`;
    routes.push({ match: [{ host: [own] }], handle: [handler], terminal: true });
    hosts.push(own);
    const custom = (domainsOf.get(slug) ?? []).sort();
    if (custom.length) {
      routes.push({ match: [{ host: custom }], handle: [HSTS, handler], terminal: true });
      hosts.push(...custom);
    }
  }
  routes.push({ handle: [slipway] });

  const httpsPort = edge.httpsPort === 443 ? "" : `:${edge.httpsPort}`;
  const httpRoutes: Json[] = [
    { match: [{ path: ["/.well-known/slipway-challenge/*"] }], handle: [slipway], terminal: true },
    {
      match: [{ host: hosts }],
      handle: [{ handler: "static_response", status_code: 308, headers: { Location: [`https://{http.request.host}${httpsPort}{http.request.uri}`] } }],
      terminal: true,
    },
    { handle: [slipway] },
  ];

  return {
    admin: { listen: adminListen(edge.admin) },
    apps: {
      http: {
        http_port: edge.httpPort,
        https_port: edge.httpsPort,
        servers: {
          [SERVER]: { "@id": EDGE_ID, listen: [`:${edge.httpsPort}`], routes, automatic_https: { disable_redirects: true } },
          [`${SERVER}_http`]: { listen: [`:${edge.httpPort}`], routes: httpRoutes },
        },
      },
      tls: edge.tls === "internal" ? { automation: { policies: [{ issuers: [{ module: "internal" }] }] } } : {},
      // The local CA (EDGE_TLS=internal) is never installed into this machine's trust store.
      pki: { certificate_authorities: { local: { install_trust: false } } },
    },
  };
}

/**
 * A running app's handler: straight to its instances, its cookies host-only. With `byDns`, the instances are
 * looked up (SRV, then A/AAAA of each target) at one of `resolvers` (Caddy picks one per query), and nothing in
 * the handler names them; Caddy uses its static upstreams, `fallbacks` (Slipway's instances), only when a lookup
 * fails. Without it (bench), they are listed.
 */
export function appHandler(target: { upstreams: readonly { host: string; port: number }[] }, byDns?: { slug: string; resolvers: readonly string[]; fallbacks: readonly string[] }): Json {
  const cookies = { response: { replace: { "Set-Cookie": [{ search_regexp: "(?i);\\s*domain=[^;]*", replace: "" }] } } };
  if (!byDns) {
    return {
      handler: "reverse_proxy",
      upstreams: target.upstreams.map((upstream) => ({ dial: dial(upstream) })),
      ...(target.upstreams.length > 1 ? SEVERAL_UPSTREAMS : {}),
      headers: cookies,
    };
  }
  const resolver = { addresses: byDns.resolvers };
  return {
    handler: "reverse_proxy",
    upstreams: byDns.fallbacks.map((address) => ({ dial: address })),
    dynamic_upstreams: { source: "srv", name: srvName(byDns.slug), refresh: `${REFRESH_MS}ms`, resolver, dial_timeout: "1s" },
    load_balancing: DYNAMIC_BALANCING,
    transport: { protocol: "http", resolver },
    headers: cookies,
  };
}

export function dial(target: { host: string; port: number }): string {
  return target.host.includes(":") ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}

/** A request to Caddy's admin API; `body` is sent as JSON (a string: already JSON). */
export function adminRequest(admin: CaddyAdmin, method: string, pathname: string, body?: unknown): Promise<{ status: number; body: string }> {
  const payload = body === undefined ? undefined : Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
  // Caddy checks the Host header of admin requests against its listen address: empty for a unix socket.
  const hostHeader = "socketPath" in admin ? "" : adminListen(admin);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...("socketPath" in admin ? { socketPath: admin.socketPath } : { host: admin.host, port: admin.port }),
        method,
        path: pathname,
        // A fresh connection each time: Caddy restarts its admin endpoint when it loads a configuration.
        agent: false,
        // An empty Host must be sent as such (Node would put "localhost" in its place).
        setHost: false,
        headers: { host: hostHeader, ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}) },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("Caddy's admin API did not answer within 30 s")));
    req.on("error", reject);
    req.end(payload);
  });
}

/** The certificate Caddy offers for `hostname` on its HTTPS port (a TLS handshake with that SNI), or null. */
export function probeCertificate(port: number, hostname: string, timeoutMs = 5_000): Promise<{ issuer: string; validTo: Date } | null> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: "127.0.0.1", port, servername: hostname, rejectUnauthorized: false, timeout: timeoutMs });
    const done = (value: { issuer: string; validTo: Date } | null) => {
      socket.destroy();
      resolve(value);
    };
    socket.once("secureConnect", () => {
      const cert = socket.getPeerCertificate();
      const matches = cert?.subject && tls.checkServerIdentity(hostname, cert) === undefined;
      done(matches ? { issuer: String(cert.issuer?.O ?? cert.issuer?.CN ?? "unknown issuer"), validTo: new Date(cert.valid_to) } : null);
    });
    socket.once("timeout", () => done(null));
    socket.once("error", () => done(null));
  });
}

const PROBE_EVERY_MS = 2_000;
/** ACME orders can take minutes; a certificate known for this long is checked again (renewals). */
const PROBE_FOR_MS = 10 * 60_000;
const RECHECK_AFTER_MS = 60 * 60_000;

/** Where an instance remembers its DNS source's port (in DATA_DIR), for its next boot to take it again. */
const RESOLVER_PORT_FILE = "edge-resolver-port";

export function createCaddyEdge(edge: CaddyConfig, options: EdgeOptions): EdgeDriver {
  /** Started by start(): it must answer before a configuration naming it is loaded. */
  let dns: UpstreamDns | null = null;
  let self: EdgeAddresses | null = null;
  /** The configuration Caddy was last given (JSON); null: unknown (a failed load, or Caddy lost it). */
  let loaded: string | null = null;
  /** Whether this process loaded a configuration yet (HELD_PLACED_MS). */
  let placedHeld = false;
  /** Custom domains in the configuration Caddy last took. */
  let served = new Set<string>();
  /** What Caddy's HTTPS port offers for each served custom domain (a TLS handshake tells). */
  const certificates = new Map<string, { label: string; checkedAt: number }>();
  const probing = new Set<string>();

  async function probe(hostname: string): Promise<void> {
    if (probing.has(hostname)) return;
    probing.add(hostname);
    try {
      const until = Date.now() + PROBE_FOR_MS;
      while (served.has(hostname) && Date.now() < until) {
        const cert = await probeCertificate(edge.httpsPort, hostname);
        if (cert) {
          certificates.set(hostname, { label: `issued by ${cert.issuer}, valid until ${cert.validTo.toISOString().slice(0, 16)}Z`, checkedAt: Date.now() });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS).unref());
      }
    } finally {
      probing.delete(hostname);
    }
  }

  return {
    name: "caddy",
    async start() {
      const portFile = path.join(options.stateDir, RESOLVER_PORT_FILE);
      const remembered = Number(await fs.promises.readFile(portFile, "utf8").catch(() => "0")) || 0;
      dns = await startUpstreamDns(options.slipway.host, remembered);
      if (dns.port !== remembered) await fs.promises.writeFile(portFile, String(dns.port));
      self = { upstream: dial(options.slipway), resolver: dns.address };
      return self;
    },
    async apply(snapshot) {
      if (!dns || !self) throw new Error("the Caddy edge was not started");
      const upstreams = dns;
      // Before a load: a route that stops being proxied falls back to Slipway, which serves its new state.
      const changed = upstreams.publish(snapshot.apps);
      const instances = [self, ...options.peers()].sort((a, b) => a.upstream.localeCompare(b.upstream) || a.resolver.localeCompare(b.resolver));
      const config = JSON.stringify(caddyConfig(snapshot, edge, options, instances));
      if (config !== loaded) {
        if (!placedHeld) await new Promise((resolve) => setTimeout(resolve, HELD_PLACED_MS));
        placedHeld = true;
        loaded = null;
        await load(config);
        loaded = config;
      }
      served = new Set(snapshot.domains.filter(([, target]) => target.verified).map(([hostname]) => hostname));
      for (const hostname of certificates.keys()) if (!served.has(hostname)) certificates.delete(hostname);
      for (const hostname of served) if (!certificates.has(hostname)) void probe(hostname);
      // Old instances retire once this resolves: Caddy must no longer pick them for a new request.
      await upstreams.settled(changed);
    },
    async holdsConfig() {
      const res = await adminRequest(edge.admin, "GET", `/id/${EDGE_ID}/listen`).catch(() => null);
      if (res?.status !== 200) loaded = null;
      return res?.status === 200;
    },
    certificate(hostname, verified) {
      if (!verified || !served.has(hostname)) return "none";
      const known = certificates.get(hostname);
      if (known && Date.now() - known.checkedAt > RECHECK_AFTER_MS) {
        certificates.delete(hostname);
        void probe(hostname);
      }
      return known?.label ?? (edge.tls === "internal" ? "pending: Caddy is issuing it from its local CA" : "pending: Caddy is obtaining it over ACME");
    },
    async close() {
      await dns?.close();
    },
  };

  async function load(config: string): Promise<void> {
    let res;
    try {
      res = await adminRequest(edge.admin, "POST", "/load", config);
    } catch (error) {
      throw new Error(`Caddy's admin API at ${adminListen(edge.admin)} is unreachable (${(error as Error).message}): is Caddy running?`, { cause: error });
    }
    if (res.status !== 200) throw new Error(`Caddy refused the configuration (${res.status}): ${res.body.slice(0, 500)}`);
  }
}
