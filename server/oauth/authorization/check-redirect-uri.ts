// Authorization request, check 2: where the browser goes back. Rules:
// - redirect_uri must equal one of the client's registered URIs exactly (no prefix match, no normalising);
// - it may be omitted only when the client registered exactly one URI (RFC 6749 §3.1.2.3). The code then
//   records that none was sent, so the token request need not repeat it: left alone, the library stores
//   the first registered URI and demands it at the token endpoint;
// - a failure is shown on an error page, never redirected (else we would be an open redirector).
import { InvalidRequestError } from "../../errors.ts";
import type { OAuthClientRecord } from "../../services/oauth-clients.ts";
import { param } from "../params.ts";

export function checkRedirectUri(params: unknown, client: OAuthClientRecord): { redirectUri: string; redirectUriSent: boolean } {
  const sent = param(params, "redirect_uri");
  if (sent !== undefined) {
    if (!client.redirectUris.includes(sent)) {
      throw new InvalidRequestError("The redirect_uri is not one this application registered. Registered URIs must match exactly.");
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
