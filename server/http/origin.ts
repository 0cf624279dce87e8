// Where a browser sent a request from, and the one rule for the session cookie that follows from it. A page on
// another origin (a hosted app on a sibling subdomain is same-site, so its requests carry the Lax cookie) must
// never act or read as the signed-in user. Used by the HTTP guard, the WebSocket handshake and the session cookie.
import type { IncomingHttpHeaders } from "node:http";
import type { Credentials } from "../auth/viewer.ts";
import { CsrfError } from "../errors.ts";

/** `own`: Slipway's pages; `foreign`: another origin; `unknown`: no browser header at all, so not a browser. */
export type RequestSource = "own" | "foreign" | "unknown";

/** Whether a browser's Origin is Slipway's own: the configured public URL, or the host the request was sent to. */
export function isOwnOrigin(publicUrl: URL, origin: string, host: string | undefined): boolean {
  return origin === publicUrl.origin || origin === `${publicUrl.protocol}//${host}`;
}

/**
 * Origin when the browser sends it (every POST, every CORS request); else Sec-Fetch-Site (modern browsers, on
 * every request to a trustworthy origin); else the Referer's origin. A request with none of them is no browser's.
 */
export function requestSource(headers: IncomingHttpHeaders, publicUrl: URL): RequestSource {
  const own = (origin: string) => (isOwnOrigin(publicUrl, origin, headers.host) ? "own" : "foreign");
  if (headers.origin !== undefined) return own(headers.origin);
  const fetchSite = headers["sec-fetch-site"];
  if (fetchSite !== undefined) return fetchSite === "same-origin" || fetchSite === "none" ? "own" : "foreign";
  if (headers.referer !== undefined) return own(originOf(headers.referer));
  return "unknown";
}

/**
 * A request that the session cookie would authenticate (a Bearer token takes precedence over it, so a request
 * with one is not) and that a browser sent from another origin.
 */
export function isCrossSiteCookie(credentials: Credentials, headers: IncomingHttpHeaders, publicUrl: URL): boolean {
  return Boolean(credentials.sessionToken) && credentials.authorization === undefined && requestSource(headers, publicUrl) === "foreign";
}

/** A session is never handed to a page of another origin (login CSRF), whether or not it sent a cookie. */
export function refuseCrossSiteSignIn(headers: IncomingHttpHeaders, publicUrl: URL): void {
  if (requestSource(headers, publicUrl) === "foreign") {
    throw new CsrfError("Cross-site sign-in refused: sign in from Slipway's own pages, not from another site.");
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "null";
  }
}
