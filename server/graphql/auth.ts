// Turns the viewer into named auth scopes, and a failed scope check into the contract's error.
// Fields declare what they need (`authScopes: { "write:apps": true }`); nothing else checks access.
import type { AuthFailure, ForbiddenResult } from "@pothos/plugin-scope-auth";
import { SCOPES, WRITE_SCOPES, type Scope } from "../auth/scopes.ts";
import {
  AccountPendingError,
  AccountSuspendedError,
  ForbiddenError,
  InsufficientScopeError,
  UnauthenticatedError,
} from "../errors.ts";
import type { Context } from "./context.ts";

export type AuthScopeName = Scope | "authenticated" | "session";
export type AuthScopes = Record<AuthScopeName, boolean>;

/** Called once per operation; a plain loop, since it runs on every request. */
export function authScopesFor(ctx: Context): AuthScopes {
  const viewer = ctx.viewer;
  const usable = !!viewer && viewer.user.status !== "SUSPENDED";
  const active = usable && viewer.user.status === "ACTIVE";
  const granted = { authenticated: usable, session: usable && viewer.via.kind === "session" } as AuthScopes;
  for (const scope of SCOPES) granted[scope] = usable && viewer.scopes.has(scope) && (active || !WRITE_SCOPES.has(scope));
  return granted;
}

function failedScopes(failure: AuthFailure): string[] {
  if ("failures" in failure) return failure.failures.flatMap(failedScopes);
  return "scope" in failure ? [failure.scope] : [];
}

export function unauthorizedError(_parent: unknown, ctx: Context, _info: unknown, result: ForbiddenResult): Error {
  const viewer = ctx.viewer;
  if (!viewer) return ctx.authError ?? new UnauthenticatedError();
  if (viewer.user.status === "SUSPENDED") return new AccountSuspendedError();
  const scopes = failedScopes(result.failure);
  if (scopes.includes("session")) return new ForbiddenError("This action is only available from a signed-in dashboard session.");
  if (scopes.includes("admin") && viewer.user.role !== "ADMIN") return new ForbiddenError("Only administrators can do this.");
  const missing = scopes.find((s): s is Scope => !viewer.scopes.has(s as Scope) && s !== "authenticated");
  if (missing) return new InsufficientScopeError(missing);
  if (viewer.user.status === "PENDING") return new AccountPendingError();
  return new ForbiddenError("You are not allowed to do this.");
}
