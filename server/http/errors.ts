// Error formatters per transport, and the Fastify error handler that picks one by path.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  AppError,
  InvalidRequestError,
  PayloadTooLargeError,
  toAppError,
  UnsupportedMediaTypeError,
} from "../errors.ts";
import { routePath } from "./route-path.ts";

/** `{"error": {"code", "message", "details"}}` for /api/*. */
export function restErrorBody(error: AppError) {
  return { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
}

/** GraphQL-shaped body for errors raised before yoga runs (rate limit, CSRF, bad credentials). */
function graphqlErrorBody(error: AppError) {
  return { errors: [{ message: error.message, extensions: { code: error.code, ...(error.details ? { details: error.details } : {}) } }] };
}

// The OAuth protocol endpoints answer RFC 6749 §5.2 bodies. /oauth/userinfo is a Bearer-protected API
// route (RFC 6750: 401 + WWW-Authenticate, the REST body); /oauth/authorize and /oauth/device are pages.
const OAUTH_PROTOCOL = /^\/(?:oauth\/(?:token|revoke|introspect)|api\/oauth\/device)$/;
const RFC_CODES = new Set([
  "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
  "access_denied", "unsupported_response_type", "server_error", "authorization_pending", "slow_down", "expired_token",
  "unsupported_token_type",
]);

/** `path` is a route path (see route-path.ts), without query. */
export function isOAuthProtocolPath(path: string): boolean {
  return OAUTH_PROTOCOL.test(path);
}

/** RFC 6749 §5.2 `{"error", "error_description"}`; other codes become invalid_request (4xx) or server_error. */
export function oauthErrorBody(error: AppError) {
  const code = RFC_CODES.has(error.code) ? error.code : error.status >= 500 ? "server_error" : "invalid_request";
  return { error: code, error_description: error.message };
}

export function sendError(reply: FastifyReply, error: AppError, body: unknown) {
  if (error.headers) reply.headers(error.headers);
  return reply.status(error.status).type("application/json; charset=utf-8").send(body);
}

/** Fastify's own 4xx errors (bad JSON, wrong content type, too large) in the contract's vocabulary. */
function fromFastifyError(error: FastifyError): AppError | null {
  const status = error.statusCode ?? 500;
  if (status === 413 || error.code === "FST_REQ_FILE_TOO_LARGE") return new PayloadTooLargeError("The request body is too large.");
  if (status === 415) return new UnsupportedMediaTypeError("Send the body as application/json.");
  if (status >= 400 && status < 500 && status !== 404 && status !== 429) {
    const malformed = error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error instanceof SyntaxError;
    return new InvalidRequestError(malformed ? `The body is not valid JSON: ${error.message}` : error.message);
  }
  return null;
}

export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = error instanceof AppError ? error : (fromFastifyError(error) ?? toAppError(error));
    if (!appError.expose) request.log.error({ err: error }, "request failed");
    const path = routePath(request);
    if (path.startsWith("/graphql")) return sendError(reply, appError, graphqlErrorBody(appError));
    if (isOAuthProtocolPath(path)) return sendError(reply, appError, oauthErrorBody(appError));
    return sendError(reply, appError, restErrorBody(appError));
  });
}
