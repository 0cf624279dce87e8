// The token endpoint's statements, as prepared SQL (db/sql.ts): the client lookup, the refresh token
// lookup, rotation and issuance. Every /oauth/token request runs these. Revocation stays on Prisma:
// it is rare, and its writes must clear the read cache of Bearer lookups (db/client.ts), which these
// writes need not: a new row was never cached, and rotation only retires a refresh token, which no
// Bearer lookup reads.
import { randomUUID } from "node:crypto";
import type { Sql } from "./sql.ts";

export interface ClientRow {
  id: string;
  clientId: string;
  name: string;
  public: boolean;
}

export interface ClientSecretRow {
  id: string;
}

export interface RefreshTokenRow {
  id: string;
  familyId: string;
  /** The refresh token's scope: the grant's (its row's grantScope), not the access token's. */
  scope: string;
  rotated: boolean;
  revoked: boolean;
  user: { id: string; role: "USER" | "ADMIN"; status: "ACTIVE" | "PENDING" | "SUSPENDED" };
  client: { id: string; clientId: string; name: string; public: boolean };
}

export interface NewTokenRow {
  accessTokenHash: string;
  accessTokenExpiresAt: Date;
  refreshTokenHash: string | null;
  /** The access token's scope. */
  scope: string;
  /** The refresh token's: the whole grant, never narrower than `scope`. */
  grantScope: string;
  familyId: string;
  clientId: string;
  userId: string;
  authorizationCodeId: string | null;
}

const FIND_CLIENT = `SELECT "id", "clientId", "name", "public" FROM "OAuthClient" WHERE "clientId" = ?`;

const FIND_SECRET = `SELECT "id" FROM "OAuthClientSecret" WHERE "clientId" = ? AND "secretHash" = ?`;

/** Conditional, so instances racing (or a request within the minute) leave the date alone. */
const TOUCH_SECRET = `UPDATE "OAuthClientSecret" SET "lastUsedAt" = ? WHERE "id" = ? AND ("lastUsedAt" IS NULL OR "lastUsedAt" < ?)`;

const FIND_REFRESH_TOKEN = `
  SELECT t."id", t."familyId", t."grantScope" AS "scope", t."rotatedAt", t."revokedAt",
         u."id" AS "userId", u."role" AS "userRole", u."status" AS "userStatus",
         c."id" AS "clientRowId", c."clientId" AS "clientId", c."name" AS "clientName", c."public" AS "clientPublic"
  FROM "OAuthToken" t
  JOIN "User" u ON u."id" = t."userId"
  JOIN "OAuthClient" c ON c."id" = t."clientId"
  WHERE t."refreshTokenHash" = ?`;

const ROTATE = `UPDATE "OAuthToken" SET "rotatedAt" = ? WHERE "id" = ? AND "rotatedAt" IS NULL AND "revokedAt" IS NULL`;

const INSERT_TOKENS = `
  INSERT INTO "OAuthToken" ("id", "accessTokenHash", "accessTokenExpiresAt", "refreshTokenHash", "scope",
    "grantScope", "familyId", "clientId", "userId", "authorizationCodeId", "createdAt")
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

interface RefreshTokenResult {
  id: string;
  familyId: string;
  scope: string;
  rotatedAt: unknown;
  revokedAt: unknown;
  userId: string;
  userRole: RefreshTokenRow["user"]["role"];
  userStatus: RefreshTokenRow["user"]["status"];
  clientRowId: string;
  clientId: string;
  clientName: string;
  clientPublic: boolean | number;
}

export function createOAuthTokenStore(sql: Sql) {
  return {
    async findClient(clientId: string): Promise<ClientRow | undefined> {
      const row = await sql.one<Omit<ClientRow, "public"> & { public: boolean | number }>(FIND_CLIENT, [clientId]);
      return row && { ...row, public: Boolean(row.public) };
    },

    /** One of the client's secrets (any not deleted), by its hash; the client by its row id. */
    async findSecret(clientRowId: string, secretHash: string): Promise<ClientSecretRow | undefined> {
      return sql.one<ClientSecretRow>(FIND_SECRET, [clientRowId, secretHash]);
    },

    /** Records that a secret was used now, unless it was already within `withinMs`. */
    async touchSecret(secretId: string, now: Date, withinMs: number): Promise<void> {
      await sql.chain([{ query: TOUCH_SECRET, params: [sql.timestamp(now), secretId, sql.timestamp(new Date(now.getTime() - withinMs))] }]);
    },

    async findRefreshToken(refreshTokenHash: string): Promise<RefreshTokenRow | undefined> {
      const row = await sql.one<RefreshTokenResult>(FIND_REFRESH_TOKEN, [refreshTokenHash]);
      if (!row) return undefined;
      return {
        id: row.id,
        familyId: row.familyId,
        scope: row.scope,
        rotated: row.rotatedAt !== null,
        revoked: row.revokedAt !== null,
        user: { id: row.userId, role: row.userRole, status: row.userStatus },
        client: { id: row.clientRowId, clientId: row.clientId, name: row.clientName, public: Boolean(row.clientPublic) },
      };
    },

    /**
     * Stores an access token (and its refresh token). With `replacing`, the refresh token being exchanged
     * is retired in the same transaction, and nothing is stored unless it was still usable: null then (a
     * race or a replay). Whoever sees the old token rotated therefore also sees its successor.
     */
    async insertTokens(row: NewTokenRow, options: { replacing?: string } = {}): Promise<{ id: string } | null> {
      const id = randomUUID();
      const now = sql.timestamp(new Date());
      const insert = {
        query: INSERT_TOKENS,
        params: [id, row.accessTokenHash, sql.timestamp(row.accessTokenExpiresAt), row.refreshTokenHash, row.scope, row.grantScope, row.familyId, row.clientId, row.userId, row.authorizationCodeId, now],
      };
      const statements = options.replacing ? [{ query: ROTATE, params: [now, options.replacing] }, insert] : [insert];
      return (await sql.chain(statements)) === statements.length ? { id } : null;
    },
  };
}

export type OAuthTokenStore = ReturnType<typeof createOAuthTokenStore>;
