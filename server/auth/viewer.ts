// Who is calling: resolved once per request from the session cookie or a Bearer token.
import type { Db } from "../db/client.ts";
import { InvalidTokenError, type AppError } from "../errors.ts";
import type { ReadCache } from "../platform/read-cache.ts";
import { hashToken } from "./secrets.ts";
import { parseScope, scopesForRole, type Scope } from "./scopes.ts";

export const SESSION_COOKIE = "slipway_session";

export interface ViewerUser {
  id: string;
  name: string;
  email: string;
  role: "USER" | "ADMIN";
  status: "ACTIVE" | "PENDING" | "SUSPENDED";
}

export interface Viewer {
  user: ViewerUser;
  scopes: ReadonlySet<Scope>;
  requestsPerMinute: number;
  via: { kind: "session"; sessionId: string } | { kind: "token"; tokenId: string; clientId: string };
}

/** The outcome of reading credentials: a viewer, nobody, or credentials that were presented but are bad. */
export type Authentication = { viewer: Viewer | null; error?: AppError };

export interface Credentials {
  sessionToken?: string;
  authorization?: string;
}

export interface Authenticate {
  (credentials: Credentials): Promise<Authentication>;
  /** The same answer without waiting, when the read cache holds the session or token; undefined otherwise. */
  cached(credentials: Credentials): Authentication | undefined;
}

const userSelect = {
  id: true,
  name: true,
  email: true,
  role: true,
  status: true,
  quota: { select: { requestsPerMinute: true } },
} as const;

export function createAuthenticator(deps: { db: Db; cache: ReadCache; defaultRequestsPerMinute: number }): Authenticate {
  const { db, cache, defaultRequestsPerMinute } = deps;

  // The viewer of a row the read cache holds is built once: the row is the same object until a write clears
  // the cache, and its expiry and revocation are still checked on every request.
  const viewers = new WeakMap<object, Viewer>();
  function once(row: object, build: () => Viewer): Viewer {
    let viewer = viewers.get(row);
    if (!viewer) viewers.set(row, (viewer = build()));
    return viewer;
  }

  function viewerOf(user: ViewerUser & { quota: { requestsPerMinute: number } | null }, scopes: ReadonlySet<Scope>, via: Viewer["via"]): Viewer {
    const { quota, ...rest } = user;
    return { user: rest, scopes, requestsPerMinute: quota?.requestsPerMinute ?? defaultRequestsPerMinute, via };
  }

  // The rows the read cache keeps (null: no such session or token); their types follow the queries.
  const sessionRow = (tokenHash: string) =>
    db.session.findUnique({ where: { tokenHash }, select: { id: true, expiresAt: true, revokedAt: true, user: { select: userSelect } } });
  const tokenRow = (accessTokenHash: string) =>
    db.oAuthToken.findUnique({
      where: { accessTokenHash },
      select: { id: true, scope: true, clientId: true, accessTokenExpiresAt: true, revokedAt: true, user: { select: userSelect } },
    });
  type SessionRow = Awaited<ReturnType<typeof sessionRow>>;
  type TokenRow = Awaited<ReturnType<typeof tokenRow>>;

  function ofSession(session: SessionRow): Authentication {
    // An unknown or expired cookie counts as no cookie: the browser simply signs in again.
    if (!session || session.revokedAt || session.expiresAt <= new Date()) return { viewer: null };
    return { viewer: once(session, () => viewerOf(session.user, scopesForRole(session.user.role), { kind: "session", sessionId: session.id })) };
  }

  function ofToken(row: TokenRow): Authentication {
    if (!row || row.revokedAt || row.accessTokenExpiresAt <= new Date()) return { viewer: null, error: new InvalidTokenError() };
    return {
      viewer: once(row, () => {
        const allowed = scopesForRole(row.user.role);
        const scopes = new Set(parseScope(row.scope).scopes.filter((s) => allowed.has(s)));
        return viewerOf(row.user, scopes, { kind: "token", tokenId: row.id, clientId: row.clientId });
      }),
    };
  }

  async function bySession(token: string): Promise<Authentication> {
    const tokenHash = hashToken(token);
    return ofSession(await cache.get(`session:${tokenHash}`, () => sessionRow(tokenHash)));
  }

  async function byToken(token: string): Promise<Authentication> {
    const accessTokenHash = hashToken(token);
    return ofToken(await cache.get(`token:${accessTokenHash}`, () => tokenRow(accessTokenHash)));
  }

  /** The Bearer token of an Authorization header, or the error that answers a malformed one. */
  function bearerOf(authorization: string): string | Authentication {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    return bearer ?? { viewer: null, error: new InvalidTokenError('The Authorization header must be "Bearer <access token>".') };
  }

  const authenticate = async (credentials: Credentials): Promise<Authentication> => {
    if (credentials.authorization !== undefined) {
      const bearer = bearerOf(credentials.authorization);
      return typeof bearer === "string" ? byToken(bearer) : bearer;
    }
    if (credentials.sessionToken) return bySession(credentials.sessionToken);
    return { viewer: null };
  };

  return Object.assign(authenticate, {
    cached(credentials: Credentials): Authentication | undefined {
      if (credentials.authorization !== undefined) {
        const bearer = bearerOf(credentials.authorization);
        if (typeof bearer !== "string") return bearer;
        const hit = cache.peek<TokenRow>(`token:${hashToken(bearer)}`);
        return hit && ofToken(hit.value);
      }
      if (!credentials.sessionToken) return { viewer: null };
      const hit = cache.peek<SessionRow>(`session:${hashToken(credentials.sessionToken)}`);
      return hit && ofSession(hit.value);
    },
  });
}
