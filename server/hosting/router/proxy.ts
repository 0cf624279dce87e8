// HTTP requests to a running app, through undici: one keep-alive pool per upstream address, request and
// response bodies streamed both ways with back-pressure, upstream failures answered with a 502/504 page.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Agent, type Dispatcher } from "undici";
import { downstreamResponseHeaders, upstreamRequestHeaders } from "./headers.ts";
import { pages, sendPage } from "./pages.ts";

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

export interface HttpProxy {
  /** `appHost` is `<slug>.<APPS_DOMAIN>`: the only domain the app's cookies may name. */
  forward(req: IncomingMessage, res: ServerResponse, target: { host: string; port: number }, slug: string, appHost: string): void;
  close(): Promise<void>;
}

export function createHttpProxy(options: {
  proto: string;
  timeouts: ProxyTimeouts;
  onError?: (slug: string, error: Error) => void;
}): HttpProxy {
  const agent = new Agent({
    connect: { timeout: options.timeouts.connectMs },
    headersTimeout: options.timeouts.headersMs,
    bodyTimeout: options.timeouts.bodyIdleMs,
    connections: CONNECTIONS_PER_APP,
  });
  return {
    forward(req, res, target, slug, appHost) {
      const host = target.host.includes(":") ? `[${target.host}]` : target.host;
      const hasBody = req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0";
      const handler = new ResponseWriter(req, res, appHost, (error) => options.onError?.(slug, error));
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
    },
    // Cuts requests still in flight: a streaming response could otherwise keep the server from closing.
    close: () => agent.destroy(),
  };
}

/** Writes the upstream's answer to the client as it arrives; a client that goes away aborts the upstream request. */
class ResponseWriter implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly appHost: string,
    private readonly report: (error: Error) => void,
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
    this.res.writeHead(statusCode, statusMessage, downstreamResponseHeaders(headers, this.appHost));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer) {
    if (!this.res.write(chunk)) {
      controller.pause();
      this.res.once("drain", () => controller.resume());
    }
  }

  onResponseEnd() {
    this.res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error) {
    if (this.res.destroyed) return;
    this.report(error);
    const code = (error as { code?: string }).code;
    sendPage(this.res, code && TIMEOUT_CODES.has(code) ? pages.gatewayTimeout : pages.badGateway, this.req.method);
  }
}
