// Error formatters per transport, and the Fastify error handler that picks one by path.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  AppError,
  InvalidRequestError,
  PayloadTooLargeError,
  toAppError,
  UnsupportedMediaTypeError,
} from "../errors.ts";

/** `{"error": {"code", "message", "details"}}` for /api/*. */
export function restErrorBody(error: AppError) {
  return { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
}

/** GraphQL-shaped body for errors raised before yoga runs (rate limit, CSRF, bad credentials). */
function graphqlErrorBody(error: AppError) {
  return { errors: [{ message: error.message, extensions: { code: error.code, ...(error.details ? { details: error.details } : {}) } }] };
}

/** RFC 6749 §5.2 for /oauth/*. */
export function oauthErrorBody(error: AppError) {
  return { error: error.code, error_description: error.message };
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
    if (request.url.startsWith("/graphql")) return sendError(reply, appError, graphqlErrorBody(appError));
    if (request.url.startsWith("/oauth")) return sendError(reply, appError, oauthErrorBody(appError));
    return sendError(reply, appError, restErrorBody(appError));
  });
}
