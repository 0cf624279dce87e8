// The OAuth 2.0 provider's HTTP endpoints. The token, authorize, device, revoke and introspect endpoints
// are protocol endpoints run by @node-oauth/oauth2-server and these handlers rather than GraphQL
// operations, a deliberate exception to "every route runs a GraphQL operation": the RFCs fix their wire
// format (form bodies, redirects, consent pages, §5.2 errors); /oauth/userinfo and the client API are
// GraphQL (graphql/schema/oauth.ts, rest/routes.ts).
import type { FastifyError, FastifyInstance, FastifyPluginAsync } from "fastify";
import { AppError, InvalidRequestError, MethodNotAllowedError, toAppError } from "../errors.ts";
import type { Platform } from "../platform/index.ts";
import { registerAuthorizeRoutes } from "./authorize.ts";
import { registerDeviceAuthorization } from "./device-authorization.ts";
import { registerDevicePages } from "./device-pages.ts";
import { registerMetadata } from "./metadata.ts";
import { registerSwitchAccount } from "./switch-account.ts";
import { sendErrorPage } from "./pages/error.ts";
import { createProvider, type Provider } from "./provider.ts";
import { registerTokenEndpoint } from "./token.ts";
import { registerTokenManagement } from "./token-management.ts";

export interface OAuthContext {
  platform: Platform;
  provider: Provider;
  issuer: string;
}

const PROTOCOL_ENDPOINTS = ["/oauth/token", "/oauth/revoke", "/oauth/introspect", "/api/oauth/device"];

function asAppError(error: FastifyError | AppError): AppError {
  if (error instanceof AppError) return error;
  const status = error.statusCode ?? 500;
  return status >= 400 && status < 500 ? new InvalidRequestError(error.message) : toAppError(error);
}

/** Consent and device pages: every error, even one raised before the handler (rate limit, CSRF), is an HTML page. */
async function pages(app: FastifyInstance, ctx: OAuthContext) {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    const appError = asAppError(error);
    if (!appError.expose) request.log.error({ err: error }, "oauth page failed");
    return sendErrorPage(reply, appError);
  });
  registerAuthorizeRoutes(app, ctx);
  registerDevicePages(app, ctx);
  registerSwitchAccount(app, ctx);
}

/** Token, revoke, introspect and device authorization: any content type reaches the handler, which answers invalid_request in RFC form. */
async function protocol(app: FastifyInstance, ctx: OAuthContext) {
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, _body, done) => done(null, undefined));
  for (const url of PROTOCOL_ENDPOINTS) {
    app.route({ method: ["GET", "PUT", "PATCH", "DELETE"], url, handler: async () => Promise.reject(new MethodNotAllowedError(["POST"])) });
  }
  registerTokenEndpoint(app, ctx);
  registerTokenManagement(app, ctx);
  registerDeviceAuthorization(app, ctx);
}

export const oauthRoutes: FastifyPluginAsync<{ platform: Platform }> = async (app, { platform }) => {
  const ctx: OAuthContext = { platform, provider: createProvider(platform.services), issuer: platform.config.publicUrl };
  await app.register(async (scope) => pages(scope, ctx));
  await app.register(async (scope) => protocol(scope, ctx));
  registerMetadata(app, ctx);
};
