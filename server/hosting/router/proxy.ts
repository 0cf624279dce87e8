// HTTP requests to a running app, through undici: one keep-alive pool per upstream address, request and
// response bodies streamed both ways with back-pressure, upstream failures answered with a 502/504 page.
// An app with several instances has its requests balanced across them (balancer.ts). A request that never
// reached its instance (connection refused), or an idempotent one whose connection broke before any answer
// (the instance died), is sent once more to another instance; the one that failed is reported (onUpstreamFailed).
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { Agent, type Dispatcher } from "undici";
import type { RequestCounts } from "../metrics/requests.ts";
import { Balancer } from "./balancer.ts";
import { downstreamResponseHeaders, upstreamRequestHeaders } from "./headers.ts";
import { pages, sendPage } from "./pages.ts";
import type { Upstream } from "./types.ts";

export interface ProxyTimeouts {
  /** Opening a TCP connection to the app; past it, 502. */
  connectMs: number;
  /** From the request sent to the response headers received; past it, 504. */
  headersMs: number;
  /** Longest silence between two chunks of a response body; past it, the response is cut. */
  bodyIdleMs: number;
}

export const DEFAULT_TIMEOUTS: ProxyTimeouts = { connectMs: 5_000, headersMs: 60_000, bodyIdleMs: 300_000 };

/** Most connections kept open to one app (further requests queue): bounds the sockets one app can hold. */
const CONNECTIONS_PER_APP = 256;

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);
/** The request never reached the instance: safe to send elsewhere whatever its method. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);
/** The connection broke before any answer: safe to send elsewhere when the method is idempotent. */
const BROKEN_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS"]);

export interface HttpProxy {
  /** `appHost` is `<slug>.<APPS_DOMAIN>`: the only domain the app's cookies may name. */
  /** `startedAt`: when the router took the request (performance.now()), for its latency in the app's metrics. */
  forward(req: IncomingMessage, res: ServerResponse, target: { upstreams: readonly Upstream[] }, slug: string, appHost: string, startedAt?: number): void;
  /** Picks the instance of an app a connection goes to (WebSockets share the balancing). */
  readonly balancer: Balancer;
  close(): Promise<void>;
}

export function createHttpProxy(options: {
  proto: string;
  timeouts: ProxyTimeouts;
  onError?: (slug: string, error: Error) => void;
  /** An instance could not be reached (the engine takes it out of rotation until it answers). */
  onUpstreamFailed?: (slug: string, upstream: Upstream, error: Error) => void;
  /** Each answer's status and time to its headers, by app (the app's metrics). */
  counts?: RequestCounts;
}): HttpProxy {
  const balancer = new Balancer();
  const agent = new Agent({
    connect: { timeout: options.timeouts.connectMs },
    headersTimeout: options.timeouts.headersMs,
    bodyTimeout: options.timeouts.bodyIdleMs,
    connections: CONNECTIONS_PER_APP,
  });
  function attempt(req: IncomingMessage, res: ServerResponse, upstreams: readonly Upstream[], slug: string, appHost: string, startedAt: number, failed?: Upstream): void {
    const target = balancer.pick(upstreams, failed);
    const done = balancer.begin(target);
    const host = target.host.includes(":") ? `[${target.host}]` : target.host;
    const hasBody = req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0";
    const retry = (error: Error): boolean => {
      const code = (error as { code?: string }).code ?? "";
      const unreachable = UNREACHABLE_CODES.has(code);
      if (unreachable) options.onUpstreamFailed?.(slug, target, error);
      const again = !failed && upstreams.length > 1 && !hasBody && (unreachable || (BROKEN_CODES.has(code) && IDEMPOTENT.has(req.method ?? "")));
      if (again) attempt(req, res, upstreams, slug, appHost, startedAt, target);
      return again;
    };
    const handler = new ResponseWriter(req, res, appHost, (error) => options.onError?.(slug, error), retry, done, options.counts, slug, startedAt);
    try {
      agent.dispatch(
        {
          origin: `http://${host}:${target.port}`,
          path: req.url!,
          method: req.method as Dispatcher.HttpMethod,
          headers: upstreamRequestHeaders(req, options.proto),
          body: hasBody ? req : null,
        },
        handler,
      );
    } catch (error) {
      handler.onResponseError(null, error as Error);
    }
  }

  return {
    balancer,
    forward(req, res, target, slug, appHost, startedAt = 0) {
      attempt(req, res, target.upstreams, slug, appHost, startedAt);
    },
    // Cuts requests still in flight: a streaming response could otherwise keep the server from closing.
    close: () => agent.destroy(),
  };
}

/** Writes the upstream's answer to the client as it arrives; a client that goes away aborts the upstream request. */
class ResponseWriter implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private started = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly appHost: string,
    private readonly report: (error: Error) => void,
    /** Before any answer: true when the request went to another instance instead. */
    private readonly retry: (error: Error) => boolean,
    private readonly done: () => void,
    private readonly counts: RequestCounts | undefined,
    private readonly slug: string,
    private readonly startedAt: number,
  ) {
    res.once("close", () => {
      if (!res.writableFinished) this.controller?.abort(new Error("client closed the connection"));
    });
  }

  onRequestStart(controller: Dispatcher.DispatchController) {
    this.controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, statusMessage?: string) {
    // Informational answers (103 Early Hints) are not passed on: the final answer follows.
    if (statusCode < 200) return;
    this.started = true;
    this.counts?.record(this.slug, statusCode, performance.now() - this.startedAt);
    this.res.writeHead(statusCode, statusMessage, downstreamResponseHeaders(headers, this.appHost));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer) {
    if (!this.res.write(chunk)) {
      controller.pause();
      this.res.once("drain", () => controller.resume());
    }
  }

  onResponseEnd() {
    this.done();
    this.res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error) {
    this.done();
    if (this.res.destroyed) return;
    if (!this.started && !this.res.headersSent && this.retry(error)) return;
    this.report(error);
    if (this.started) return sendPage(this.res, pages.badGateway, this.req.method); // cut mid-answer: counted already
    const code = (error as { code?: string }).code;
    const page = code && TIMEOUT_CODES.has(code) ? pages.gatewayTimeout : pages.badGateway;
    this.counts?.record(this.slug, page.status, performance.now() - this.startedAt);
    sendPage(this.res, page, this.req.method);
  }
}
