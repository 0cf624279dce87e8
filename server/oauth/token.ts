// POST /oauth/token. The library runs the grants (authorization_code, refresh_token and the device_code
// extension) through the model; this handler adapts the request, renders the token response (RFC 6749
// §5.1, never cached) and translates every error, including those the library throws before its own
// error handling (wrong method or content type, unknown client), into RFC 6749 §5.2 form.
import OAuth2Server from "@node-oauth/oauth2-server";
import type { FastifyInstance } from "fastify";
import { InvalidGrantError, UnsupportedGrantTypeError } from "../errors.ts";
import { basicCredentials } from "./client-auth.ts";
import { fromLibraryError, invalidClient } from "./errors.ts";
import { CLIENT_GRANTS } from "./model.ts";
import { ACCESS_TOKEN_LIFETIME_SECONDS } from "./provider.ts";
import type { OAuthContext } from "./routes.ts";

/**
 * The library calls a token request whose redirect_uri does not repeat the authorization request's an
 * invalid_request; RFC 6749 §5.2 calls it invalid_grant (the grant does not match).
 */
function redirectUriMismatch(error: unknown): InvalidGrantError | null {
  const mismatch = error instanceof OAuth2Server.InvalidRequestError && /`redirect_uri`/.test(error.message);
  return mismatch ? new InvalidGrantError("The redirect_uri does not match the one of the authorization request.") : null;
}

/** The library also knows password and client_credentials; we offer neither (unsupported, not merely unauthorized). */
const SUPPORTED_GRANTS = new Set(CLIENT_GRANTS);

export function registerTokenEndpoint(app: FastifyInstance, ctx: OAuthContext) {
  app.post("/oauth/token", async (request, reply) => {
    reply.header("Cache-Control", "no-store").header("Pragma", "no-cache");
    const body = (request.body && typeof request.body === "object" ? request.body : {}) as Record<string, string>;
    const grantType = body.grant_type;
    if (typeof grantType === "string" && grantType && !SUPPORTED_GRANTS.has(grantType)) {
      throw new UnsupportedGrantTypeError(`grant_type "${grantType}" is not supported. Use ${[...SUPPORTED_GRANTS].join(", ")}.`);
    }
    const headers = { ...request.headers } as Record<string, string>;
    const basic = basicCredentials(request.headers.authorization);
    if (basic === "malformed") throw invalidClient(true, "The Authorization header must be Basic base64(client_id:client_secret).");
    // The library does not form-decode Basic credentials (RFC 6749 §2.3.1): hand it the decoded pair.
    if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.clientId}:${basic.clientSecret}`).toString("base64")}`;
    const libraryRequest = new OAuth2Server.Request({ method: request.method, headers, query: request.query as Record<string, string>, body });
    let token: OAuth2Server.Token;
    try {
      token = await ctx.provider.server.token(libraryRequest, new OAuth2Server.Response());
    } catch (error) {
      throw redirectUriMismatch(error) ?? fromLibraryError(error, { basicAttempted: basic !== null });
    }
    return {
      access_token: token.accessToken,
      token_type: "Bearer",
      expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
      refresh_token: token.refreshToken,
      scope: (token.scope ?? []).join(" "),
    };
  });
}
