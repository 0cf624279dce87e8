// WebSocket (and other Upgrade) handshakes to a running app. Node's HTTP client sends the handshake and
// parses the upstream's answer; once the app has switched protocols the two sockets are piped together.
// An app that refuses the upgrade has its answer passed on, and the client connection is closed after it.
import http, { type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { cookieStaysOnHost, upstreamRequestHeaders } from "./headers.ts";
import { pages } from "./pages.ts";

type Page = (typeof pages)[keyof typeof pages];

/** Raw header pairs without the Set-Cookie headers that name another domain than the app's (see cookieStaysOnHost). */
function withoutForeignCookies(raw: string[], appHost: string): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].toLowerCase() === "set-cookie" && !cookieStaysOnHost(raw[i + 1], appHost)) continue;
    kept.push(raw[i], raw[i + 1]);
  }
  return kept;
}

function head(statusCode: number, statusMessage: string, rawHeaders: string[]): string {
  let text = `HTTP/1.1 ${statusCode} ${statusMessage}\r\n`;
  for (let i = 0; i < rawHeaders.length; i += 2) text += `${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`;
  return `${text}\r\n`;
}

/** Answers a handshake with a page and closes the connection. */
export function refuseUpgrade(socket: Duplex, { status, body, headers }: Page): void {
  if (!socket.writable) return void socket.destroy();
  const raw = Object.entries({ ...headers, connection: "close" }).flat();
  socket.end(head(status, http.STATUS_CODES[status] ?? "", raw) + body.toString());
}

export interface UpgradeProxy {
  forward(req: IncomingMessage, socket: Duplex, clientHead: Buffer, target: { host: string; port: number }, appHost: string): void;
  /** Cuts every proxied connection (the server is closing). */
  close(): void;
}

export function createUpgradeProxy(options: { proto: string; handshakeTimeoutMs: number }): UpgradeProxy {
  const open = new Set<Duplex>();
  const track = (socket: Duplex) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  };
  return {
    forward(req, socket, clientHead, target, appHost) {
      track(socket);
      const upstream = http.request({
        host: target.host,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: upstreamRequestHeaders(req, options.proto, true),
        agent: false,
        timeout: options.handshakeTimeoutMs,
      });
      const fail = (page: Page) => {
        upstream.destroy();
        refuseUpgrade(socket, page);
      };
      upstream.once("timeout", () => fail(pages.gatewayTimeout));
      upstream.once("error", () => fail(pages.badGateway));
      socket.once("error", () => upstream.destroy());
      socket.once("close", () => upstream.destroy());

      upstream.once("upgrade", (res, upstreamSocket, upstreamHead) => {
        track(upstreamSocket);
        upstreamSocket.setTimeout(0);
        socket.write(head(res.statusCode!, res.statusMessage ?? "", withoutForeignCookies(res.rawHeaders, appHost)));
        if (upstreamHead.length) socket.write(upstreamHead);
        // Bytes the client sent after its handshake go upstream first.
        if (clientHead.length) upstreamSocket.write(clientHead);
        upstreamSocket.on("error", () => socket.destroy());
        socket.on("error", () => upstreamSocket.destroy());
        upstreamSocket.once("close", () => socket.destroy());
        socket.once("close", () => upstreamSocket.destroy());
        upstreamSocket.pipe(socket).pipe(upstreamSocket);
      });

      // The app answered without switching protocols: pass its answer on, then close.
      upstream.once("response", (res) => {
        const raw = withoutForeignCookies(res.rawHeaders, appHost).filter((_, i, all) => !/^(connection|keep-alive|transfer-encoding)$/i.test(all[i - (i % 2)]));
        socket.write(head(res.statusCode!, res.statusMessage ?? "", [...raw, "connection", "close"]));
        res.pipe(socket);
      });
      upstream.end();
    },
    close() {
      for (const socket of open) socket.destroy();
    },
  };
}
