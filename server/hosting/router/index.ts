// The router: the first thing every request meets. Requests for `<slug>.<APPS_DOMAIN>` are answered here
// (proxied to the app, served from its static folder, or a status page) and never reach Fastify, so no
// platform route, hook, header or cookie applies to them; every other request goes to the platform.
// It hooks Node's server directly (as Fastify's `serverFactory`), so an app request costs one Host match
// and one in-memory lookup before it is forwarded. Custom domains (RouteTable.domain) are app hosts too: a
// verified one reaches its app exactly as `<slug>.<APPS_DOMAIN>` does, a pending one only answers its challenge.
// Only PUBLIC_URL's hostname and loopback names reach the platform: any other host (a removed custom domain, a
// stray DNS record) gets the "No app here" 404 page, never the dashboard.
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { challengeToken, sendChallenge } from "./challenge.ts";
import { isValidHost } from "../../http/host.ts";
import { hostMatcher, hostName, platformHostMatcher } from "./host.ts";
import { pages, sendPage, unavailablePage, wakeFailedPage, type Page } from "./pages.ts";
import type { Activity } from "../sleep/activity.ts";
import type { RequestCounts } from "../metrics/requests.ts";
import { performance } from "node:perf_hooks";
import { createHttpProxy, DEFAULT_TIMEOUTS, type ProxyTimeouts } from "./proxy.ts";
import { serveStatic } from "./static.ts";
import type { RouteTable, Upstream } from "./types.ts";
import { createUpgradeProxy, refuseUpgrade } from "./upgrade.ts";

export type { DomainTarget, RouteTable, RouteTarget, Upstream } from "./types.ts";

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
export type FastPathHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface RouterOptions {
  appsDomain: string;
  /** The platform's own address: its hostname is never an app host, its scheme is the X-Forwarded-Proto apps see. */
  publicUrl: string;
  routes: RouteTable;
  timeouts?: Partial<ProxyTimeouts>;
  /**
   * Called when an app request failed: the app could not be reached or failed mid-answer (the client got a
   * 502/504 page or a cut response), or the router itself failed (500 page).
   */
  onError?: (slug: string, error: Error) => void;
  /** An app instance refused a connection: the engine takes it out of rotation until it answers a health check. */
  onUpstreamFailed?: (slug: string, upstream: Upstream, error: Error) => void;
  /**
   * Apps that sleep when idle: every request and WebSocket counts as the app's activity, and a request to a sleeping
   * app is held while `wake` starts it (resolving once it serves), then answered.
   */
  sleep?: { activity: Activity; wake(slug: string): Promise<void> };
  /** Each answer to an app's request (status, time to its headers), for the app's metrics. */
  counts?: RequestCounts;
}

/** The options Fastify hands its `serverFactory` that the HTTP server needs (Fastify applies them itself otherwise). */
export interface ServerOptions {
  http?: http.ServerOptions;
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

export interface Router {
  /** Fastify's `serverFactory`: creates the HTTP server, giving Fastify only the platform's requests. */
  serverFactory(platform: RequestListener, options: ServerOptions): http.Server;
  /** Answers a request if its Host is an app's; false when it is the platform's. */
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean;
  /** Every Upgrade (WebSocket) request: app hosts to the app, platform hosts to the handler of their path, else refused. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Who answers WebSocket handshakes to `path` on the platform's hosts (graphql-ws on /graphql); a RegExp matches paths with an id in them. */
  platformUpgrade(path: string | RegExp, handler: UpgradeHandler): void;
  /**
   * Answers some of the platform's requests before Fastify (the edge's CDN lookups, http/cdn-edge.ts): `handler`
   * returns true when it answered, false to let the router and Fastify have the request. Handlers run before the
   * Host is matched, so one must take only requests that can be nothing but the platform's (the edge's lookups
   * carry a secret token that Caddy sets only on the platform host's content route).
   */
  platformFastPath(handler: FastPathHandler): void;
  /** Cuts proxied WebSockets and responses still streaming, and closes the upstream connection pools. */
  close(): Promise<void>;
}

interface AppHost {
  slug: string | null;
  /** `<slug>.<APPS_DOMAIN>` or the custom domain: the only domain the app's cookies may name. */
  appHost: string;
  /** A custom domain still pending verification: the token its challenge answers. */
  pendingToken?: string;
}

export function createRouter(options: RouterOptions): Router {
  const publicUrl = new URL(options.publicUrl);
  const proto = publicUrl.protocol.slice(0, -1);
  const appsDomain = options.appsDomain.toLowerCase();
  const match = hostMatcher(appsDomain, publicUrl.hostname);
  const isPlatform = platformHostMatcher(publicUrl.hostname);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const counts = options.counts;
  const httpProxy = createHttpProxy({ proto, timeouts, onError: options.onError, onUpstreamFailed: options.onUpstreamFailed, counts });
  const upgradeProxy = createUpgradeProxy({ proto, handshakeTimeoutMs: timeouts.headersMs });
  const platformUpgrades = new Map<string, UpgradeHandler>();
  const platformUpgradePatterns: [RegExp, UpgradeHandler][] = [];
  const fastPaths: FastPathHandler[] = [];
  const sleep = options.sleep;

  /** Whose request it is: an app's (slug null: none, answered 404), with the host its cookies may name; null: the platform's. */
  function classify(host: string | undefined): AppHost | null {
    const matched = match(host);
    if (matched.app) return { slug: matched.slug, appHost: `${matched.slug}.${appsDomain}` };
    const name = hostName(host);
    const domain = name === null ? undefined : options.routes.domain?.(name);
    if (domain) return domain.verified ? { slug: domain.slug, appHost: name! } : { slug: null, appHost: name!, pendingToken: domain.token };
    // A malformed Host is the platform's to refuse (400, RFC 9112 §3.2), like its own names.
    return isPlatform(host) || (host !== undefined && !isValidHost(host)) ? null : { slug: null, appHost: name ?? "" };
  }

  function answer(req: IncomingMessage, res: ServerResponse, host: AppHost, woken = false, startedAt = performance.now()): void {
    const { slug, appHost, pendingToken } = host;
    if (pendingToken !== undefined && challengeToken(req.method, req.url) === pendingToken) return sendChallenge(res, req, pendingToken);
    const target = slug === null ? null : options.routes.lookup(slug);
    // Known apps only: a Host naming no app must not grow the map.
    if (target !== null && target.kind !== "unknown") sleep?.activity.touch(slug!);
    // Origin-form only ("/path"): the absolute and asterisk forms are for proxies and OPTIONS *.
    if (req.url?.charCodeAt(0) !== 47) sendPage(res, pages.badRequest, req.method);
    else if (target === null || target.kind === "unknown") sendPage(res, pages.unknownApp, req.method);
    else if (target.kind === "proxy") {
      // A request still under way keeps its app awake (a long upload, a stream) until it ends.
      if (sleep) countOpen(sleep.activity, slug!, res);
      httpProxy.forward(req, res, target, slug!, appHost, startedAt);
    } else if (target.kind === "static") {
      void serveStatic(req, res, target.root)
        .catch((error: Error) => fail(res, req.method, slug!, error))
        .finally(() => counts?.record(slug!, res.statusCode, performance.now() - startedAt));
    } else if (target.kind === "sleeping") {
      // A held request is counted once, when answered (its wait included).
      wakeThen(slug!, woken, () => answer(req, res, host, true, startedAt), () => sendCounted(res, req.method, slug!, wakeFailedPage, startedAt));
    } else sendCounted(res, req.method, slug!, unavailablePage(target), startedAt);
  }

  /** A page answered for an app (it is down, or did not wake): its status counts in the app's metrics. */
  function sendCounted(res: ServerResponse, method: string | undefined, slug: string, page: Page, startedAt: number): void {
    counts?.record(slug, page.status, performance.now() - startedAt);
    sendPage(res, page, method);
  }

  /** Holds a request to a sleeping app while it starts, then answers it (`then`); `failed` when it did not start. */
  function wakeThen(slug: string, woken: boolean, then: () => void, failed: () => void): void {
    // Still asleep right after a wake: it did not start (a start that failed leaves it asleep or crashed).
    if (!sleep || woken) return failed();
    sleep.wake(slug).then(then, (error: Error) => {
      options.onError?.(slug, error);
      failed();
    });
  }

  function fail(res: ServerResponse, method: string | undefined, slug: string | null, error: Error): void {
    options.onError?.(slug ?? "", error);
    sendPage(res, pages.internalError, method);
  }

  function handleRequest(req: IncomingMessage, res: ServerResponse): boolean {
    const host = classify(req.headers.host);
    if (!host) return false;
    try {
      answer(req, res, host);
    } catch (error) {
      fail(res, req.method, host.slug, error as Error);
    }
    return true;
  }

  function upgradeApp(req: IncomingMessage, socket: Duplex, head: Buffer, host: AppHost, woken = false): void {
    const { slug, appHost } = host;
    const target = slug === null ? null : options.routes.lookup(slug);
    if (req.url?.charCodeAt(0) !== 47) refuseUpgrade(socket, pages.badRequest);
    else if (target === null || target.kind === "unknown") refuseUpgrade(socket, pages.unknownApp);
    else if (target.kind === "proxy") {
      if (sleep) countOpen(sleep.activity, slug!, socket);
      upgradeProxy.forward(req, socket, head, httpProxy.balancer.pick(target.upstreams), appHost);
    } else if (target.kind === "static") refuseUpgrade(socket, pages.notFound);
    else if (target.kind === "sleeping") wakeThen(slug!, woken, () => upgradeApp(req, socket, head, host, true), () => refuseUpgrade(socket, wakeFailedPage));
    else refuseUpgrade(socket, unavailablePage(target));
  }

  function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const host = classify(req.headers.host);
    if (!host) {
      const query = req.url?.indexOf("?") ?? -1;
      const path = query === -1 ? (req.url ?? "") : req.url!.slice(0, query);
      const handler = platformUpgrades.get(path) ?? platformUpgradePatterns.find(([pattern]) => pattern.test(path))?.[1];
      return handler ? handler(req, socket, head) : refuseUpgrade(socket, pages.notFound);
    }
    try {
      upgradeApp(req, socket, head, host);
    } catch (error) {
      options.onError?.(host.slug ?? "", error as Error);
      refuseUpgrade(socket, pages.internalError);
    }
  }

  return {
    serverFactory(platform, serverOptions) {
      const server = http.createServer(serverOptions.http ?? {}, (req, res) => {
        for (const fastPath of fastPaths) if (fastPath(req, res)) return;
        if (handleRequest(req, res)) return;
        platform(req, res);
      });
      // What Fastify does to the server it creates when there is no serverFactory.
      if (serverOptions.keepAliveTimeout !== undefined) server.keepAliveTimeout = serverOptions.keepAliveTimeout;
      if (serverOptions.requestTimeout !== undefined) server.requestTimeout = serverOptions.requestTimeout;
      if (serverOptions.connectionTimeout !== undefined) server.setTimeout(serverOptions.connectionTimeout);
      if (serverOptions.maxRequestsPerSocket) server.maxRequestsPerSocket = serverOptions.maxRequestsPerSocket;
      server.on("upgrade", handleUpgrade);
      return server;
    },
    handleRequest,
    handleUpgrade,
    platformUpgrade(path, handler) {
      if (typeof path === "string") platformUpgrades.set(path, handler);
      else platformUpgradePatterns.push([path, handler]);
    },
    platformFastPath(handler) {
      fastPaths.push(handler);
    },
    async close() {
      upgradeProxy.close();
      await httpProxy.close();
    },
  };
}

/** An open WebSocket, or a response under way, keeps its app awake until it closes. */
function countOpen(activity: Activity, slug: string, stream: Duplex | ServerResponse): void {
  activity.opened(slug);
  stream.once("close", () => activity.closed(slug));
}
