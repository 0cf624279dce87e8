// The comparison for the token endpoint: panva's oidc-provider, standalone (its own Koa app on a Node
// HTTP server, as it is deployed), with one confidential client allowed the refresh_token grant and
// refresh tokens rotated on every use, as Slipway does. Its tokens are opaque, like Slipway's: no
// `openid` scope (so no signed ID token), access tokens for one resource server in opaque format.
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Adapter } from "oidc-provider";

export const OIDC_CLIENT = { id: "bench-client", secret: "bench-client-secret-0123456789abcdef" };
const RESOURCE = "urn:slipway:bench";
const SCOPE = "offline_access read:user";
const ACCOUNT = "bench-user";

export interface OidcProviderServer {
  url: string;
  tokenUrl: string;
  /** A new grant and its first refresh token, minted through the provider's own models. */
  mintRefreshToken(): Promise<string>;
  close(): Promise<void>;
}

/** `adapter` is oidc-provider's storage; its in-memory LRU store when omitted. */
export async function startOidcProvider(adapter?: new (name: string) => Adapter): Promise<OidcProviderServer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(url, {
    adapter,
    clients: [
      {
        client_id: OIDC_CLIENT.id,
        client_secret: OIDC_CLIENT.secret,
        grant_types: ["authorization_code", "refresh_token"],
        redirect_uris: ["http://127.0.0.1:9/callback"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    scopes: ["offline_access"],
    rotateRefreshToken: true,
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => ({ scope: "read:user", accessTokenFormat: "opaque", accessTokenTTL: 3600 }),
      },
    },
    ttl: { AccessToken: 3600, RefreshToken: 100 * 365 * 24 * 3600, Grant: 100 * 365 * 24 * 3600 },
    cookies: { keys: ["bench-cookie-key-not-secret"] },
  });
  server.on("request", provider.callback());

  return {
    url,
    tokenUrl: `${url}/token`,
    async mintRefreshToken() {
      const client = await provider.Client.find(OIDC_CLIENT.id);
      if (!client) throw new Error(`oidc-provider does not know ${OIDC_CLIENT.id}`);
      const grant = new provider.Grant({ accountId: ACCOUNT, clientId: OIDC_CLIENT.id });
      grant.addOIDCScope("offline_access");
      grant.addResourceScope(RESOURCE, "read:user");
      const grantId = await grant.save();
      const token = new provider.RefreshToken({ accountId: ACCOUNT, client, grantId, scope: SCOPE, resource: RESOURCE, gty: "authorization_code" });
      return token.save();
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
