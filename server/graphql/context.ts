import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { AppError } from "../errors.ts";
import type { Authentication, Viewer } from "../auth/viewer.ts";
import type { Services } from "../services/index.ts";
import type { Acting } from "../services/audit.ts";

/** How a resolver sets or clears the session cookie; a no-op over WebSocket. */
export interface SessionCookie {
  /** Throws CsrfError when a browser sent the request from another origin: sign in before creating anything. */
  assertSameOrigin(): void;
  /** Refuses a cross-site request like assertSameOrigin. */
  set(token: string, expiresAt: Date): void;
  clear(): void;
}

export interface Context {
  config: Config;
  db: Db;
  services: Services;
  viewer: Viewer | null;
  /** Credentials were presented but are bad (e.g. an expired token): reported when a field needs a viewer. */
  authError?: AppError;
  client: { ip?: string; userAgent?: string };
  sessionCookie: SessionCookie;
  /** Reads the caller's credentials again (subscriptions re-check them before each event). */
  reauthenticate(): Promise<Authentication>;
}

export type ViewerContext = Context & { viewer: Viewer };

/** The signed-in user acting through this request, as services record it in the audit log. */
export function acting(ctx: ViewerContext): Acting {
  return { id: ctx.viewer.user.id, name: ctx.viewer.user.name, ip: ctx.client.ip };
}

/** The dashboard session making this request, if it is one. */
export function currentSessionId(ctx: ViewerContext): string | null {
  return ctx.viewer.via.kind === "session" ? ctx.viewer.via.sessionId : null;
}
