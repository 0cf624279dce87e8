// The authorization request pipeline, shared by GET /oauth/authorize (show the consent page) and POST
// (record the decision). Order matters:
//   1 client, 2 redirect URI  → failures shown on an error page (checkTarget)
//   then the request's parameters, each given once and within its length (params.ts), before they travel
//     anywhere (the sign-in detour, the consent form) → failures redirected to the client (requestParams)
//   3 response_type, 4 state, 5 scope (for this user), 6 PKCE → failures redirected to the client with
//     error, error_description and state (checkRequest)
import type { Scope } from "../../auth/scopes.ts";
import type { OAuthClientRecord, OAuthClientService } from "../../services/oauth-clients.ts";
import { param } from "../params.ts";
import { resolveScope } from "../scope.ts";
import { checkClient } from "./check-client.ts";
import { checkPkce } from "./check-pkce.ts";
import { checkRedirectUri } from "./check-redirect-uri.ts";
import { checkResponseType } from "./check-response-type.ts";
import { checkState } from "./check-state.ts";

export interface AuthorizationTarget {
  client: OAuthClientRecord;
  redirectUri: string;
  redirectUriSent: boolean;
}

export interface AuthorizationRequest extends AuthorizationTarget {
  responseType: "code";
  state?: string;
  scopes: Scope[];
  codeChallenge?: string;
  codeChallengeMethod?: "S256" | "plain";
}

/** The parameters of an authorization request: all that the consent form and the sign-in detour carry. */
const REQUEST_PARAMS = ["client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method"];

/** The request's own parameters that were sent, each within its bounds; nothing else comes along. */
export function requestParams(params: unknown): Record<string, string> {
  return Object.fromEntries(REQUEST_PARAMS.flatMap((name) => {
    const value = param(params, name);
    return value === undefined ? [] : [[name, value]];
  }));
}

export async function checkTarget(params: unknown, clients: OAuthClientService): Promise<AuthorizationTarget> {
  const client = await checkClient(params, clients);
  return { client, ...checkRedirectUri(params, client) };
}

export function checkRequest(params: unknown, target: AuthorizationTarget, user: { role: "USER" | "ADMIN" }): AuthorizationRequest {
  const responseType = checkResponseType(params);
  const state = checkState(params);
  const scopes = resolveScope(param(params, "scope"), user);
  return { ...target, responseType, state, scopes, ...checkPkce(params, target.client) };
}

/** The state to echo on an error redirect: the request's, when it is valid at all. */
export function stateOf(params: unknown): string | undefined {
  try {
    return checkState(params);
  } catch {
    return undefined;
  }
}
