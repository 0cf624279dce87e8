// One typed error hierarchy for every transport. Each error carries its HTTP status and the contract's
// snake_case code; `expose` says whether the message is safe to show. Formatters live beside each
// transport: rest/errors.ts (JSON body), graphql/errors.ts (extensions.code), oauth (RFC 6749).

export type FieldErrors = Record<string, string>;

export class AppError extends Error {
  readonly status: number = 500;
  readonly code: string = "internal";
  readonly expose: boolean = true;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(message: string, options: { details?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** An error about specific input fields, each with a message (`details.fields` in REST). */
abstract class FieldsError extends AppError {
  readonly fields: FieldErrors;
  constructor(message: string, fields: FieldErrors = {}) {
    super(message, { details: { fields } });
    this.fields = fields;
  }
}

export class InvalidRequestError extends FieldsError {
  override readonly status = 400;
  override readonly code = "invalid_request";
}

const bearer = 'Bearer realm="slipway"';

export class UnauthenticatedError extends AppError {
  override readonly status = 401;
  override readonly code = "unauthenticated";
  constructor(message = "Sign in or send an access token in the Authorization header.") {
    super(message, { headers: { "WWW-Authenticate": bearer } });
  }
}

export class InvalidTokenError extends AppError {
  override readonly status = 401;
  override readonly code = "invalid_token";
  constructor(message = "The access token is invalid, expired or revoked. Sign in again or refresh the token.") {
    super(message, { headers: { "WWW-Authenticate": `${bearer}, error="invalid_token"` } });
  }
}

export class InvalidCredentialsError extends AppError {
  override readonly status = 401;
  override readonly code = "invalid_credentials";
  constructor() {
    // RFC 9110 §15.5.2: every 401 names a way to authenticate; the API's is a Bearer token (or this form's session).
    super("The email or password is incorrect.", { headers: { "WWW-Authenticate": bearer } });
  }
}

export class ForbiddenError extends AppError {
  override readonly status = 403;
  override readonly code: string = "forbidden";
}

export class InsufficientScopeError extends ForbiddenError {
  override readonly code = "insufficient_scope";
  constructor(scope: string) {
    super(`This access token lacks the "${scope}" scope. Ask the user to authorize it again with that scope.`, {
      details: { requiredScope: scope },
      headers: { "WWW-Authenticate": `${bearer}, error="insufficient_scope", scope="${scope}"` },
    });
  }
}

export class AccountPendingError extends ForbiddenError {
  override readonly code = "account_pending";
  constructor() {
    super("Your account is waiting for an administrator's approval; until then you can sign in and read, but not make changes.");
  }
}

export class AccountSuspendedError extends ForbiddenError {
  override readonly code = "account_suspended";
  constructor() {
    super("This account is suspended. Contact an administrator.");
  }
}

export class CsrfError extends ForbiddenError {
  constructor(message = "Cross-site request refused: this request carries the session cookie but comes from another origin.") {
    super(message);
  }
}

export class QuotaExceededError extends AppError {
  override readonly status: number = 403;
  override readonly code = "quota_exceeded";
}

export class StorageQuotaExceededError extends QuotaExceededError {
  override readonly status = 413;
}

export class NotFoundError extends AppError {
  override readonly status = 404;
  override readonly code = "not_found";
}

export class ConflictError extends FieldsError {
  override readonly status = 409;
  override readonly code = "conflict";
}

export class PayloadTooLargeError extends AppError {
  override readonly status = 413;
  override readonly code = "payload_too_large";
}

export class MethodNotAllowedError extends AppError {
  override readonly status = 405;
  override readonly code = "method_not_allowed";
  constructor(allowed: string[], message = `Use ${allowed.join(" or ")} for this endpoint.`) {
    super(message, { headers: { Allow: allowed.join(", ") } });
  }
}

export class UnsupportedMediaTypeError extends AppError {
  override readonly status = 415;
  override readonly code = "unsupported_media_type";
}

export class RateLimitedError extends AppError {
  override readonly status = 429;
  override readonly code = "rate_limited";
  constructor(retryAfterSeconds: number, message = `Too many requests. Try again in ${retryAfterSeconds} seconds.`) {
    super(message, { headers: { "Retry-After": String(retryAfterSeconds) }, details: { retryAfter: retryAfterSeconds } });
  }
}

export class InternalError extends AppError {
  override readonly expose = false;
  constructor(cause?: unknown) {
    super("Something went wrong on our side. Try again; if it persists, contact the administrator.", { cause });
  }
}

/** An error the cluster's leader answered a command with, raised again on the instance that took the request. */
export class RelayedError extends AppError {
  constructor(
    message: string,
    override readonly status: number,
    override readonly code: string,
    details?: Record<string, unknown>,
  ) {
    super(message, { details });
  }
}

/** No instance leads the cluster now: the work is queued and runs once one does. */
export class EngineUnavailableError extends AppError {
  override readonly status = 503;
  override readonly code = "engine_unavailable";
}

// RFC 6749 §5.2 / RFC 8628 §3.5 errors of the OAuth protocol endpoints (token, device authorization,
// revoke, introspect) and of authorization redirects. `code` is the RFC `error` value. An OAuth
// invalid_request is the InvalidRequestError above (same code).
export class OAuthError extends AppError {
  override readonly status: number = 400;
  override readonly code: string = "server_error";
}

export class InvalidClientError extends OAuthError {
  override readonly status = 401;
  override readonly code = "invalid_client";
}

export class InvalidGrantError extends OAuthError {
  override readonly code = "invalid_grant";
}

export class UnauthorizedClientError extends OAuthError {
  override readonly code = "unauthorized_client";
}

export class UnsupportedGrantTypeError extends OAuthError {
  override readonly code = "unsupported_grant_type";
}

export class UnsupportedResponseTypeError extends OAuthError {
  override readonly code = "unsupported_response_type";
}

export class InvalidScopeError extends OAuthError {
  override readonly code = "invalid_scope";
}

export class AccessDeniedError extends OAuthError {
  override readonly code = "access_denied";
}

export class AuthorizationPendingError extends OAuthError {
  override readonly code = "authorization_pending";
}

export class SlowDownError extends OAuthError {
  override readonly code = "slow_down";
}

export class ExpiredTokenError extends OAuthError {
  override readonly code = "expired_token";
}

/** An error that crossed GraphQL as data (a result union member): its code and status as it was raised. */
class TransportedError extends AppError {
  constructor(
    override readonly code: string,
    override readonly status: number,
    message: string,
    fields?: FieldErrors,
  ) {
    super(message, fields ? { details: { fields } } : {});
  }
}

/** Rebuilds an error that crossed GraphQL as data, keeping the code and the status it was raised with. */
export function errorFromCode(code: string, message: string, status: number, fields?: FieldErrors): AppError {
  if (status < 400 || status > 499) return new InternalError(new Error(`error ${code} crossed GraphQL with status ${status}: ${message}`));
  return new TransportedError(code, status, message, fields);
}

/** Any thrown value as an AppError; unknown errors become a masked InternalError. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new InternalError(error);
}
