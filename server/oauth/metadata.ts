// GET /.well-known/oauth-authorization-server (RFC 8414): every endpoint, the scopes, grant types and
// PKCE methods, with `issuer` = PUBLIC_URL. Clients (openid-client's discovery) read it to configure
// themselves, so it must match what the endpoints really do.
import type { FastifyInstance } from "fastify";
import { SCOPES } from "../auth/scopes.ts";
import { CLI_CLIENT_ID } from "../services/oauth-clients.ts";
import { DEVICE_CODE_GRANT } from "./device-grant.ts";
import type { OAuthContext } from "./routes.ts";

export function authorizationServerMetadata(issuer: string) {
  const secretAuth = ["client_secret_basic", "client_secret_post"];
  // Public clients ("none") may use every endpoint but introspection (token-management.ts).
  const clientAuth = [...secretAuth, "none"];
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    device_authorization_endpoint: `${issuer}/api/oauth/device`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", DEVICE_CODE_GRANT],
    token_endpoint_auth_methods_supported: clientAuth,
    revocation_endpoint_auth_methods_supported: clientAuth,
    introspection_endpoint_auth_methods_supported: secretAuth,
    code_challenge_methods_supported: ["S256", "plain"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/api/openapi.json`,
    // Not in RFC 8414 (which allows extensions): the first-party public client the slipway CLI logs in with.
    slipway_cli_client_id: CLI_CLIENT_ID,
  };
}

export function registerMetadata(app: FastifyInstance, ctx: OAuthContext) {
  const metadata = authorizationServerMetadata(ctx.issuer);
  app.get("/.well-known/oauth-authorization-server", async (_request, reply) => {
    reply.header("Cache-Control", "public, max-age=3600");
    return metadata;
  });
}
