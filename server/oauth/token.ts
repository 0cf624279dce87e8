// POST /oauth/token. The library runs the grants (authorization_code, refresh_token and the device_code
// extension) through the model; this handler adapts the request, renders the token response (RFC 6749
// §5.1, never cached) and translates every error, including those the library throws before its own
// error handling (wrong method or content type, unknown client), into RFC 6749 §5.2 form. Before the
// library sees the request: a form body whose parameters each appear once (params.ts), and client
// credentials presented by one method only (client-auth.ts).
import OAuth2Server from "@node-oauth/oauth2-server";
import type { FastifyInstance } from "fastify";
import { InvalidGrantError, UnsupportedGrantTypeError } from "../errors.ts";
import { clientCredentials } from "./client-auth.ts";
import { fromLibraryError } from "./errors.ts";
import { CLIENT_GRANTS } from "./model.ts";
import { formParams, requireFormBody } from "./params.ts";
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
    requireFormBody(request);
    const body = formParams(request.body);
    const grantType = body.grant_type;
    if (grantType && !SUPPORTED_GRANTS.has(grantType)) {
      throw new UnsupportedGrantTypeError(`grant_type "${grantType}" is not supported. Use ${[...SUPPORTED_GRANTS].join(", ")}.`);
    }
    const credentials = clientCredentials(request);
    const headers = { ...request.headers } as Record<string, string>;
    // The library does not form-decode Basic credentials (RFC 6749 §2.3.1): hand it the decoded pair.
    if (credentials?.basic) headers.authorization = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString("base64")}`;
    // Token request parameters travel in the body only (RFC 6749 §3.2): the query is not handed on.
    const libraryRequest = new OAuth2Server.Request({ method: request.method, headers, query: {}, body });
    let token: OAuth2Server.Token;
    try {
      token = await ctx.provider.server.token(libraryRequest, new OAuth2Server.Response());
    } catch (error) {
      throw redirectUriMismatch(error) ?? fromLibraryError(error, { basicAttempted: credentials?.basic === true });
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
