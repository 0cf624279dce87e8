// Real upstreams for the router's tests (Node HTTP and WebSocket servers on 127.0.0.1), a RouteTable the test
// fills in, and a keep-alive agent for request() (test/helpers/apps.ts), which sends any Host header and raw path.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import type { RouteTable, RouteTarget } from "../../server/hosting/router/types.ts";

export class TestRoutes implements RouteTable {
  readonly targets = new Map<string, RouteTarget>();
  lookup(slug: string): RouteTarget {
    return this.targets.get(slug) ?? { kind: "unknown" };
  }
}

export interface Upstream {
  server: http.Server;
  port: number;
  /** TCP connections the upstream has accepted so far. */
  connections: number;
  close(): Promise<void>;
}

export async function startUpstream(handler: http.RequestListener): Promise<Upstream> {
  const server = http.createServer(handler);
  const upstream: Upstream = {
    server,
    port: 0,
    connections: 0,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  server.on("connection", () => void (upstream.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  upstream.port = (server.address() as AddressInfo).port;
  return upstream;
}

/** A WebSocket server that echoes every message, prefixed with the path and X-Forwarded-For of its handshake. */
export function attachEcho(server: http.Server): WebSocketServer {
  const wss = new WebSocketServer({ server });
  wss.on("connection", (ws, req) => {
    ws.on("message", (data) => ws.send(`${req.url} ${req.headers["x-forwarded-for"]} ${data.toString()}`));
  });
  return wss;
}

export const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
