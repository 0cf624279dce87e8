// Authorization request, check 2: where the browser goes back. Rules:
// - redirect_uri must equal one of the client's registered URIs exactly (no prefix match, no normalising),
//   with one exception: a loopback IP URI (http://127.0.0.1 or http://[::1]) matches on any port, since a
//   native app listens on whatever port the system gives it (RFC 8252 §7.3): registered with or without a
//   port, everything but the port must still be equal, character for character;
// - it may be omitted only when the client registered exactly one URI (RFC 6749 §3.1.2.3). The code then
//   records that none was sent, so the token request need not repeat it: left alone, the library stores
//   the first registered URI and demands it at the token endpoint;
// - the URI chosen must pass today's registration rules (services/oauth-clients.ts): a URI stored under
//   older rules (a wildcard, a non-ASCII character) is refused here rather than put in a Location header;
// - a failure is shown on an error page, never redirected (else we would be an open redirector).
import { InvalidRequestError } from "../../errors.ts";
import { redirectUriProblem } from "../../services/oauth-client-rules.ts";
import type { OAuthClientRecord } from "../../services/oauth-clients.ts";
import { param } from "../params.ts";

/** scheme and loopback host, optional port, then the rest (path and query) */
const LOOPBACK_IP_URI = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?].*)?$/s;

function loopbackParts(uri: string): { host: string; rest: string } | null {
  const match = LOOPBACK_IP_URI.exec(uri);
  if (!match) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { host: match[1], rest: match[3] ?? "" };
}

/** True when `sent` is one of `registered` (the rules above); shared with the library's own check (model.ts). */
export function redirectUriRegistered(registered: readonly string[], sent: string): boolean {
  if (registered.includes(sent)) return true;
  const loopback = loopbackParts(sent);
  if (!loopback) return false;
  return registered.some((uri) => {
    const parts = loopbackParts(uri);
    return parts !== null && parts.host === loopback.host && parts.rest === loopback.rest;
  });
}

export function checkRedirectUri(params: unknown, client: OAuthClientRecord): { redirectUri: string; redirectUriSent: boolean } {
  const target = chosenRedirectUri(params, client);
  const problem = redirectUriProblem(target.redirectUri);
  if (problem) throw new InvalidRequestError(`This application's redirect URI cannot be used: ${problem} Its developer must update it.`);
  return target;
}

function chosenRedirectUri(params: unknown, client: OAuthClientRecord): { redirectUri: string; redirectUriSent: boolean } {
  const sent = param(params, "redirect_uri");
  if (sent !== undefined) {
    if (!redirectUriRegistered(client.redirectUris, sent)) {
      throw new InvalidRequestError(
        "The redirect_uri is not one this application registered. Registered URIs must match exactly (loopback IP addresses on any port).",
      );
    }
    return { redirectUri: sent, redirectUriSent: true };
  }
  if (client.redirectUris.length === 1) return { redirectUri: client.redirectUris[0], redirectUriSent: false };
  throw new InvalidRequestError(
    client.redirectUris.length
      ? "This application registered several redirect URIs: the request must name one with redirect_uri."
      : "This application registered no redirect URI, so it cannot use the authorization code flow.",
  );
}
