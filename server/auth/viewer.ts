// Who is calling: resolved once per request from the session cookie or a Bearer token.
import type { Db } from "../db/client.ts";
import { InvalidTokenError, type AppError } from "../errors.ts";
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
  scopes: Set<Scope>;
  requestsPerMinute: number;
  via: { kind: "session"; sessionId: string } | { kind: "token"; tokenId: string; clientId: string };
}

/** The outcome of reading credentials: a viewer, nobody, or credentials that were presented but are bad. */
export type Authentication = { viewer: Viewer | null; error?: AppError };

const viewerSelect = {
  id: true,
  name: true,
  email: true,
  role: true,
  status: true,
  quota: { select: { requestsPerMinute: true } },
} as const;

export interface Credentials {
  sessionToken?: string;
  authorization?: string;
}

export async function authenticate(db: Db, credentials: Credentials, defaultRequestsPerMinute: number): Promise<Authentication> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(credentials.authorization ?? "")?.[1];
  if (credentials.authorization !== undefined) {
    if (!bearer) return { viewer: null, error: new InvalidTokenError("The Authorization header must be \"Bearer <access token>\".") };
    return authenticateToken(db, bearer, defaultRequestsPerMinute);
  }
  if (credentials.sessionToken) return authenticateSession(db, credentials.sessionToken, defaultRequestsPerMinute);
  return { viewer: null };
}

async function authenticateSession(db: Db, token: string, defaultRpm: number): Promise<Authentication> {
  const session = await db.session.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, expiresAt: true, revokedAt: true, user: { select: viewerSelect } },
  });
  // An unknown or expired cookie is treated as no cookie: the browser simply signs in again.
  if (!session || session.revokedAt || session.expiresAt <= new Date()) return { viewer: null };
  const { user } = session;
  return {
    viewer: {
      user,
      scopes: scopesForRole(user.role),
      requestsPerMinute: user.quota?.requestsPerMinute ?? defaultRpm,
      via: { kind: "session", sessionId: session.id },
    },
  };
}

async function authenticateToken(db: Db, token: string, defaultRpm: number): Promise<Authentication> {
  const row = await db.oAuthToken.findUnique({
    where: { accessTokenHash: hashToken(token) },
    select: { id: true, scope: true, clientId: true, accessTokenExpiresAt: true, revokedAt: true, user: { select: viewerSelect } },
  });
  if (!row || row.revokedAt || row.accessTokenExpiresAt <= new Date()) return { viewer: null, error: new InvalidTokenError() };
  const allowed = scopesForRole(row.user.role);
  return {
    viewer: {
      user: row.user,
      scopes: new Set(parseScope(row.scope).scopes.filter((s) => allowed.has(s))),
      requestsPerMinute: row.user.quota?.requestsPerMinute ?? defaultRpm,
      via: { kind: "token", tokenId: row.id, clientId: row.clientId },
    },
  };
}
