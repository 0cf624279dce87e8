// The OAuth provider's settings in one place, and the @node-oauth/oauth2-server instance built from them.
import OAuth2Server from "@node-oauth/oauth2-server";
import type { Services } from "../services/index.ts";
import { DEVICE_CODE_GRANT, DeviceCodeGrantType } from "./device-grant.ts";
import { createModel, type Model } from "./model.ts";

/** Access tokens live one hour. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
/** Authorization codes are single use and live at most ten minutes. */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 600;
/**
 * Refresh tokens never expire (rotation and revocation end them): the model stores no expiry. The
 * library insists on a lifetime, so it gets a century it never uses.
 */
const UNUSED_REFRESH_LIFETIME_SECONDS = 100 * 365 * 24 * 3600;

export interface Provider {
  server: OAuth2Server;
  model: Model;
}

export function createProvider(services: Services): Provider {
  const model = createModel(services);
  const server = new OAuth2Server({
    model: model as unknown as OAuth2Server.ServerOptions["model"],
    accessTokenLifetime: ACCESS_TOKEN_LIFETIME_SECONDS,
    refreshTokenLifetime: UNUSED_REFRESH_LIFETIME_SECONDS,
    authorizationCodeLifetime: AUTHORIZATION_CODE_LIFETIME_SECONDS,
    alwaysIssueNewRefreshToken: true,
    // `state` is recommended, not required (RFC 6749 §4.1.1); when sent it is echoed.
    allowEmptyState: true,
    // The library refuses `plain` unless told; the contract supports it (S256 is still what we advertise first).
    enablePlainPKCE: true,
    // The model decides who must authenticate: confidential clients always (their secret), public clients
    // never (they have none). Left to the library, a code_verifier would excuse any client from its secret.
    requireClientAuthentication: { authorization_code: false, refresh_token: false, [DEVICE_CODE_GRANT]: false },
    extendedGrantTypes: { [DEVICE_CODE_GRANT]: DeviceCodeGrantType },
  } as OAuth2Server.ServerOptions & { enablePlainPKCE: boolean });
  return { server, model };
}
