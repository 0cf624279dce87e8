// Domain ownership challenges (services/domains.ts): `GET /.well-known/slipway-challenge/<token>` answers the
// token as plain text, only for a domain pending with that token. Slipway fetches it through the hostname to
// prove the hostname reaches this server.
import type { IncomingMessage, ServerResponse } from "node:http";

export const CHALLENGE_PREFIX = "/.well-known/slipway-challenge/";

/** The token a request asks for, or null when it is no challenge request (GET or HEAD, no query). */
export function challengeToken(method: string | undefined, url: string | undefined): string | null {
  if ((method !== "GET" && method !== "HEAD") || !url?.startsWith(CHALLENGE_PREFIX)) return null;
  const token = url.slice(CHALLENGE_PREFIX.length);
  return /^[A-Za-z0-9_-]{16,128}$/.test(token) ? token : null;
}

export function sendChallenge(res: ServerResponse, req: IncomingMessage, token: string): void {
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "content-length": String(Buffer.byteLength(token)), "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : token);
}
