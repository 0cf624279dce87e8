// The OAuth endpoints as the server announces them (RFC 8414 metadata, with PUBLIC_URL as the issuer), for the
// OAuth app page: the addresses come from the server, never assembled here.
export const DISCOVERY_PATH = "/.well-known/oauth-authorization-server";

export interface OAuthEndpoints {
  authorize: string;
  token: string;
  discovery: string;
}

/** The endpoints, or null when the discovery document cannot be read (the page then shows none). */
export async function loadOAuthEndpoints(fetch: typeof globalThis.fetch): Promise<OAuthEndpoints | null> {
  try {
    const res = await fetch(DISCOVERY_PATH);
    if (!res.ok) return null;
    const metadata: { issuer: string; authorization_endpoint: string; token_endpoint: string } = await res.json();
    return { authorize: metadata.authorization_endpoint, token: metadata.token_endpoint, discovery: `${metadata.issuer}${DISCOVERY_PATH}` };
  } catch {
    return null;
  }
}
