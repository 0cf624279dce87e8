// Header rules for proxied requests (RFC 9110 §7.6.1): hop-by-hop headers stay on their own connection,
// and the X-Forwarded-* headers are the router's alone (a client's values are dropped, never trusted).
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "http2-settings",
  // Node's server has already answered `100 Continue`; the upstream request is sent whole.
  "expect",
]);

const FORWARDING = new Set(["forwarded", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "x-real-ip"]);

/** The header names a `Connection` header lists (they are hop-by-hop too). */
function connectionTokens(value: string | string[] | undefined): Set<string> | null {
  // Nearly every message says only `keep-alive` or `close`: no header to strip, no set to build.
  if (!value || value === "keep-alive" || value === "close" || value === "Keep-Alive" || value === "Close") return null;
  const tokens = (Array.isArray(value) ? value.join(",") : value).toLowerCase().split(",");
  return new Set(tokens.map((t) => t.trim()).filter(Boolean));
}

/**
 * The headers sent upstream: the client's end-to-end headers (its Host included, so the app sees the address
 * it was called by) plus X-Forwarded-For/Proto/Host. For a WebSocket handshake `upgrade` keeps the
 * Connection/Upgrade pair the upstream needs.
 */
export function upstreamRequestHeaders(req: IncomingMessage, proto: string, upgrade = false): Record<string, string | string[]> {
  const source = req.headers;
  const listed = connectionTokens(source.connection);
  const headers: Record<string, string | string[]> = {};
  for (const name in source) {
    if (HOP_BY_HOP.has(name) || FORWARDING.has(name) || listed?.has(name)) continue;
    headers[name] = source[name]!;
  }
  headers["x-forwarded-for"] = req.socket.remoteAddress ?? "";
  headers["x-forwarded-proto"] = proto;
  if (source.host) headers["x-forwarded-host"] = source.host;
  if (upgrade && source.upgrade) {
    headers.connection = "upgrade";
    headers.upgrade = source.upgrade;
  }
  return headers;
}

/**
 * Whether a Set-Cookie stays with the app's own host. A Domain attribute naming anything else (APPS_DOMAIN,
 * a parent of it, the platform's domain) would plant the cookie on sibling apps or on the platform itself
 * (cookie tossing, say a forged session cookie), so such cookies are dropped.
 */
export function cookieStaysOnHost(cookie: string, appHost: string): boolean {
  for (const attribute of cookie.split(";").slice(1)) {
    const eq = attribute.indexOf("=");
    if (eq === -1 || attribute.slice(0, eq).trim().toLowerCase() !== "domain") continue;
    const domain = attribute.slice(eq + 1).trim().toLowerCase().replace(/^\./, "");
    if (domain !== "" && domain !== appHost) return false;
  }
  return true;
}

/**
 * The upstream's response headers without its hop-by-hop ones (Node frames the response to the client
 * itself) and without cookies for other hosts than `appHost`.
 */
export function downstreamResponseHeaders(source: IncomingHttpHeaders, appHost: string): IncomingHttpHeaders {
  const listed = connectionTokens(source.connection);
  const headers: IncomingHttpHeaders = {};
  for (const name in source) {
    if (HOP_BY_HOP.has(name) || listed?.has(name)) continue;
    headers[name] = source[name];
  }
  // undici hands over one Set-Cookie as a plain string, several as an array (whatever IncomingHttpHeaders says).
  const cookies: string | string[] | undefined = headers["set-cookie"];
  if (cookies) headers["set-cookie"] = [cookies].flat().filter((cookie) => cookieStaysOnHost(cookie, appHost));
  return headers;
}
