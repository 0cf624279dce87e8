// Redirects back to the client (RFC 6749 §4.1.2): parameters are appended to the registered URI as it was
// registered (not re-serialised, so the client recognises it), with `iss` (RFC 9207) against mix-ups.
// Registration admits only ASCII URIs; should anything else reach here, its other characters are
// percent-encoded rather than let into the Location header, where Node refuses them with a 500.
import type { AppError } from "../errors.ts";
import { oauthErrorBody } from "../http/errors.ts";

const percentEncoded = (char: string) => [...Buffer.from(char, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
const headerSafe = (uri: string) => uri.replace(/[^\x21-\x7e]/gu, percentEncoded);

export function clientRedirect(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  query.set("iss", issuer);
  return `${headerSafe(redirectUri)}${redirectUri.includes("?") ? "&" : "?"}${query}`;
}

export function errorRedirect(redirectUri: string, issuer: string, error: AppError, state: string | undefined): string {
  return clientRedirect(redirectUri, issuer, { ...oauthErrorBody(error), state });
}
