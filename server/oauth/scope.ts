// Which scopes a client gets. Rules:
// - no scope (the library hands `validateScope` undefined) or an empty one means `read:user`;
// - an unknown scope name is invalid_scope, never silently dropped;
// - `admin` only for users with role ADMIN (checked once the user is known);
// - the result is what the token carries: exactly the scopes granted; tokens issued later from the same
//   grant (refresh) carry only what the user's role still allows.
import { DEFAULT_SCOPE, parseScope, SCOPES, scopesForRole, type Scope } from "../auth/scopes.ts";
import { InvalidScopeError } from "../errors.ts";

export function resolveScope(requested: string | string[] | undefined | null, user?: { role: "USER" | "ADMIN" }): Scope[] {
  const text = Array.isArray(requested) ? requested.join(" ") : (requested ?? "");
  if (typeof text !== "string") throw new InvalidScopeError("The scope parameter must be a space-separated string.");
  const { scopes, unknown } = parseScope(text.trim());
  if (unknown.length) {
    throw new InvalidScopeError(`Unknown scope "${unknown[0]}". Known scopes: ${SCOPES.join(", ")}.`);
  }
  if (user && scopes.includes("admin") && user.role !== "ADMIN") {
    throw new InvalidScopeError('The "admin" scope can only be granted by administrators.');
  }
  return scopes.length ? SCOPES.filter((s) => scopes.includes(s)) : [DEFAULT_SCOPE];
}

/** The granted scopes the user's role allows now: a user demoted since the grant loses `admin`. */
export function scopesStillAllowed(scopes: readonly string[], user: { role: "USER" | "ADMIN" }): Scope[] {
  const allowed = scopesForRole(user.role);
  return parseScope(scopes.join(" ")).scopes.filter((s) => allowed.has(s));
}
