import { InvalidRequestError } from "../errors.ts";

/**
 * The longest value each parameter may have. Values are echoed into redirects (the consent form, the
 * sign-in detour's `next`, error descriptions), so none is unbounded; these leave ample room for what
 * real clients send (our ids and tokens are under 50 characters).
 */
const MAX_LENGTH: Record<string, number> = {
  client_id: 100,
  redirect_uri: 2000, // as at registration
  response_type: 50,
  scope: 500,
  state: 2000,
  code_challenge: 128, // RFC 7636 §4.2
  code_challenge_method: 16,
  code_verifier: 128, // RFC 7636 §4.1
  grant_type: 100,
  token_type_hint: 50,
  user_code: 50,
  decision: 16,
  csrf_token: 100,
};
const DEFAULT_MAX_LENGTH = 2000;

/**
 * One parameter of a query, form or JSON body: a string, or undefined when absent or empty. A parameter
 * given twice (or not as a string) is refused: RFC 6749 §3.1 and §3.2 forbid repeating parameters. So is
 * one longer than its maximum (MAX_LENGTH), without repeating the value.
 */
export function param(source: unknown, name: string): string | undefined {
  const value = source && typeof source === "object" ? (source as Record<string, unknown>)[name] : undefined;
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw new InvalidRequestError(`The ${name} parameter must be given once, as a string.`);
  const max = MAX_LENGTH[name] ?? DEFAULT_MAX_LENGTH;
  if (value.length > max) throw new InvalidRequestError(`The ${name} parameter is too long: at most ${max} characters.`);
  return value;
}

/** Every parameter of a form body, each read with param(): a repeated one is refused, empty ones are left out. */
export function formParams(body: unknown): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of Object.keys(body && typeof body === "object" ? body : {})) {
    const value = param(body, name);
    if (value !== undefined) params[name] = value;
  }
  return params;
}

/** Protocol endpoints take form bodies (RFC 6749 §3.2); the device endpoint also takes JSON. */
export function requireFormBody(request: { headers: Record<string, unknown>; body: unknown }, options: { json?: boolean } = {}): void {
  const type = String(request.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  const accepted = type === "application/x-www-form-urlencoded" || (options.json === true && type === "application/json");
  if (!accepted || !request.body || typeof request.body !== "object" || Array.isArray(request.body)) {
    throw new InvalidRequestError(`Send the parameters as an application/x-www-form-urlencoded${options.json ? " or JSON object" : ""} body.`);
  }
}
