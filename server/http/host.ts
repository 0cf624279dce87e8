// Every request's Host header is checked first: later code (routing apps by host, building request URLs for
// GraphQL) may take it for a host name, and a malformed one must end in a 400, never a 500.
import type { FastifyInstance } from "fastify";
import { InvalidRequestError } from "../errors.ts";

/** A host name or IPv4 address, or a bracketed IPv6 address, and an optional port (RFC 9110 §7.2, RFC 3986 §3.2.2). */
const HOST = /^(?:[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** Host headers already found valid (a server sees a handful): checked without a URL parse. */
const validHosts = new Set<string>();
const VALID_HOSTS_KEPT = 1000;

export function isValidHost(host: string): boolean {
  if (validHosts.has(host)) return true;
  if (!checkHost(host)) return false;
  if (validHosts.size < VALID_HOSTS_KEPT) validHosts.add(host);
  return true;
}

function checkHost(host: string): boolean {
  if (!HOST.test(host)) return false;
  try {
    return new URL(`http://${host}/`).pathname === "/";
  } catch {
    return false; // an IPv6 literal that only looks like one, a port above 65535
  }
}

/**
 * RFC 9112 §3.2: 400 for an invalid Host or more than one (Node keeps the first and drops the others silently).
 * HTTP/1.0 requests may come without Host; HTTP/1.1 ones without it are refused by Node itself.
 */
export function registerHostCheck(app: FastifyInstance) {
  app.addHook("onRequest", (request, _reply, done) => {
    const host = request.headers.host;
    if (host !== undefined && !isValidHost(host)) return done(new InvalidRequestError("The Host header is not a valid host name (host[:port])."));
    if (hostLines(request.raw.rawHeaders) > 1) return done(new InvalidRequestError("Send one Host header."));
    done();
  });
}

function hostLines(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].length === 4 && rawHeaders[i].toLowerCase() === "host") count += 1;
  return count;
}
