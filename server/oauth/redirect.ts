// Redirects back to the client (RFC 6749 §4.1.2): parameters are appended to the registered URI as it was
// registered (not re-serialised, so the client recognises it), with `iss` (RFC 9207) against mix-ups.
import type { AppError } from "../errors.ts";
import { oauthErrorBody } from "../http/errors.ts";

export function clientRedirect(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  query.set("iss", issuer);
  return `${redirectUri}${redirectUri.includes("?") ? "&" : "?"}${query}`;
}

export function errorRedirect(redirectUri: string, issuer: string, error: AppError, state: string | undefined): string {
  return clientRedirect(redirectUri, issuer, { ...oauthErrorBody(error), state });
}
