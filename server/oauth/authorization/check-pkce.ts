// Authorization request, check 6: PKCE (RFC 7636). Rules:
// - code_challenge_method is S256 or plain; a challenge without a method is plain (RFC 7636 §4.3);
// - a code_challenge is 43–128 characters of [A-Za-z0-9-._~]; a method without a challenge is refused;
// - public clients must send a challenge: they have no secret, so PKCE is what binds the code to them;
// - no challenge (confidential clients) means no PKCE, and the token request must then send no
//   code_verifier (the library refuses one).
import { InvalidRequestError } from "../../errors.ts";
import type { OAuthClientRecord } from "../../services/oauth-clients.ts";
import { param } from "../params.ts";

const CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;

export function checkPkce(params: unknown, client: OAuthClientRecord): { codeChallenge?: string; codeChallengeMethod?: "S256" | "plain" } {
  const challenge = param(params, "code_challenge");
  const method = param(params, "code_challenge_method");
  if (method !== undefined && method !== "S256" && method !== "plain") {
    throw new InvalidRequestError(`code_challenge_method "${method}" is not supported; use S256.`);
  }
  if (challenge === undefined) {
    if (method !== undefined) throw new InvalidRequestError("code_challenge_method was sent without a code_challenge.");
    if (client.public) throw new InvalidRequestError("Public clients must use PKCE: send code_challenge and code_challenge_method=S256.");
    return {};
  }
  if (!CHALLENGE.test(challenge)) throw new InvalidRequestError("code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' or '~'.");
  return { codeChallenge: challenge, codeChallengeMethod: method ?? "plain" };
}
