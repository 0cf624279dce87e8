// The library's errors in the contract's hierarchy (server/errors.ts), so one formatter per transport
// renders them. Errors our model or grant threw travel inside the library's ServerError (`inner`).
import OAuth2Server from "@node-oauth/oauth2-server";
import {
  AccessDeniedError,
  AppError,
  InternalError,
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  UnauthorizedClientError,
  UnsupportedGrantTypeError,
  UnsupportedResponseTypeError,
} from "../errors.ts";

const BY_RFC_CODE: Record<string, (message: string) => AppError> = {
  invalid_request: (m) => new InvalidRequestError(m),
  invalid_client: (m) => new InvalidClientError(m),
  invalid_grant: (m) => new InvalidGrantError(m),
  unauthorized_client: (m) => new UnauthorizedClientError(m),
  unsupported_grant_type: (m) => new UnsupportedGrantTypeError(m),
  unsupported_response_type: (m) => new UnsupportedResponseTypeError(m),
  invalid_scope: (m) => new InvalidScopeError(m),
  access_denied: (m) => new AccessDeniedError(m),
};

/** invalid_client is always 401; a client that tried HTTP Basic is told how to authenticate (RFC 6749 §5.2). */
export function invalidClient(basicAttempted: boolean, message = "Client authentication failed: unknown client, wrong secret, or a secret sent by a public client."): InvalidClientError {
  return new InvalidClientError(message, basicAttempted ? { headers: { "WWW-Authenticate": 'Basic realm="slipway"' } } : {});
}

export function fromLibraryError(error: unknown, options: { basicAttempted: boolean }): AppError {
  let result: AppError;
  if (error instanceof AppError) result = error;
  else if (error instanceof OAuth2Server.OAuthError) {
    const inner = (error as { inner?: unknown }).inner;
    const make = BY_RFC_CODE[error.name];
    result = inner instanceof AppError ? inner : make ? make(error.message) : new InternalError(error);
  } else result = new InternalError(error);
  return result instanceof InvalidClientError ? invalidClient(options.basicAttempted, result.message) : result;
}
