// What users grant to OAuth clients: authorization codes, access/refresh token families, remembered
// consent and the list of authorized apps. Codes and tokens are stored only as SHA-256 hashes.
//
// Token families: every token issued from one grant (a code, a device approval) shares a familyId; each
// refresh rotates the refresh token (the old row gets rotatedAt) and adds a row to the family. Presenting a
// rotated refresh token again, or replaying a used code, is treated as theft: the whole family is revoked.
// A replay can arrive while the first exchange is still storing its tokens, so a replayed code is marked
// (replayedAt) before its tokens are revoked, and issueTokens checks the mark after storing: whichever
// comes second sees the other's write, and no token of a replayed code stays usable. A refresh token is
// retired in the same transaction that stores its successor, so whoever finds it rotated (and revokes the
// family) finds the successor too. Revoking an app deletes the user's consent before it revokes tokens, and
// a new grant (code or device) checks the consent after storing its tokens: an exchange in flight while the
// user revokes the app keeps nothing usable either.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.ts";
import type { OAuthTokenStore } from "../db/oauth-token-store.ts";
import { hashToken } from "../auth/secrets.ts";
import { parseScope } from "../auth/scopes.ts";
import type { Acting, AuditService } from "./audit.ts";
import type { Page } from "./pages.ts";

export interface GrantUser {
  id: string;
  role: "USER" | "ADMIN";
  status: "ACTIVE" | "PENDING" | "SUSPENDED";
}

export interface NewCode {
  code: string;
  clientId: string;
  userId: string;
  /** Empty when the authorization request sent no redirect_uri (the client's only URI was used). */
  redirectUri: string;
  scope: string[];
  codeChallenge?: string;
  codeChallengeMethod?: string;
  expiresAt: Date;
}

export interface NewTokens {
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken?: string;
  /** The access token's scope. */
  scope: string[];
  /** The refresh token's: the grant's whole scope, which a refresh asking for less keeps (RFC 6749 §6). */
  grantScope: string[];
  clientId: string;
  userId: string;
  /** The family to extend (refresh); a new one starts otherwise. */
  familyId?: string;
  authorizationCodeId?: string;
  /** The refresh token these tokens replace: retired as they are stored, and nothing stored unless it was still usable. */
  replacesTokenId?: string;
}

/** What issueTokens did: stored the tokens, or revoked them at once (their grant was replayed, or the user withdrew the app's access meanwhile). */
export type Issuance = "issued" | "replayed" | "withdrawn";

const userSelect = { id: true, role: true, status: true } as const;
const clientSelect = { id: true, clientId: true, name: true, public: true } as const;

/** `tokens` serves the statements every token request runs (issue, find and rotate); the rest is Prisma. */
export function createOAuthGrantService(db: Db, tokens: OAuthTokenStore, audit: AuditService) {
  async function revokeFamilies(familyIds: string[]): Promise<void> {
    if (!familyIds.length) return;
    await db.oAuthToken.updateMany({ where: { familyId: { in: familyIds }, revokedAt: null }, data: { revokedAt: new Date() } });
  }

  async function revokeTokensOfCode(codeId: string): Promise<void> {
    const issued = await db.oAuthToken.findMany({ where: { authorizationCodeId: codeId }, select: { familyId: true } });
    await revokeFamilies([...new Set(issued.map((t) => t.familyId))]);
  }

  /** A code presented after its use: marked first, so that an exchange still in flight revokes its own tokens. */
  async function replayed(codeId: string): Promise<void> {
    await db.oAuthAuthorizationCode.updateMany({ where: { id: codeId }, data: { replayedAt: new Date() } });
    await revokeTokensOfCode(codeId);
  }

  return {
    async saveCode(input: NewCode) {
      const { code, scope, ...rest } = input;
      return db.oAuthAuthorizationCode.create({ data: { ...rest, codeHash: hashToken(code), scope: scope.join(" ") } });
    },

    /** A usable code with its client and user; a code presented after its use revokes what it issued. */
    async findCode(code: string) {
      const row = await db.oAuthAuthorizationCode.findUnique({
        where: { codeHash: hashToken(code) },
        include: { user: { select: userSelect }, client: { select: clientSelect } },
      });
      if (!row) return null;
      if (row.usedAt) {
        await replayed(row.id);
        return null;
      }
      return row;
    },

    /** Marks the code used; false when another request used it first (then its tokens are revoked too). */
    async consumeCode(codeId: string): Promise<boolean> {
      const { count } = await db.oAuthAuthorizationCode.updateMany({ where: { id: codeId, usedAt: null }, data: { usedAt: new Date() } });
      if (count === 1) return true;
      await replayed(codeId);
      return false;
    },

    /**
     * Stores the tokens. Refused: the refresh token they replace was already used (its family is then
     * revoked), their code was replayed meanwhile, or, for a new grant, the user revoked the app meanwhile
     * (then they are revoked at once).
     */
    async issueTokens(input: NewTokens): Promise<Issuance> {
      const familyId = input.familyId ?? randomUUID();
      // Refresh tokens do not expire (no refreshTokenExpiresAt): rotation and revocation end them.
      const stored = await tokens.insertTokens({
        accessTokenHash: hashToken(input.accessToken),
        accessTokenExpiresAt: input.accessTokenExpiresAt,
        refreshTokenHash: input.refreshToken ? hashToken(input.refreshToken) : null,
        scope: input.scope.join(" "),
        grantScope: input.grantScope.join(" "),
        familyId,
        clientId: input.clientId,
        userId: input.userId,
        authorizationCodeId: input.authorizationCodeId ?? null,
      }, { replacing: input.replacesTokenId });
      if (!stored) {
        await revokeFamilies([familyId]);
        return "replayed";
      }
      if (input.authorizationCodeId) {
        const code = await db.oAuthAuthorizationCode.findUnique({ where: { id: input.authorizationCodeId }, select: { replayedAt: true } });
        if (code?.replayedAt) {
          await revokeTokensOfCode(input.authorizationCodeId);
          return "replayed";
        }
      }
      if (!input.replacesTokenId) {
        const where = { userId_clientId: { userId: input.userId, clientId: input.clientId } };
        if (!(await db.oAuthConsent.findUnique({ where, select: { id: true } }))) {
          await revokeFamilies([familyId]);
          return "withdrawn";
        }
      }
      return "issued";
    },

    /** A refresh token that may be used now; presenting a rotated one revokes its whole family. */
    async findRefreshToken(refreshToken: string) {
      const row = await tokens.findRefreshToken(hashToken(refreshToken));
      if (!row || row.revoked) return null;
      if (row.rotated) {
        await revokeFamilies([row.familyId]);
        return null;
      }
      return row;
    },

    /** Finds a token by its value for revocation and introspection; the hint only picks the first lookup. */
    async findToken(token: string, hint?: string) {
      const hash = hashToken(token);
      const include = { user: { select: { ...userSelect, name: true } }, client: { select: clientSelect } } as const;
      const byAccess = () => db.oAuthToken.findUnique({ where: { accessTokenHash: hash }, include });
      const byRefresh = () => db.oAuthToken.findUnique({ where: { refreshTokenHash: hash }, include });
      const order = hint === "refresh_token" ? [byRefresh, byAccess] : [byAccess, byRefresh];
      for (const [i, lookup] of order.entries()) {
        const row = await lookup();
        if (row) return { row, kind: (order[i] === byAccess ? "access_token" : "refresh_token") as "access_token" | "refresh_token" };
      }
      return null;
    },

    /**
     * RFC 7009: an access token is revoked with its row's refresh token; a refresh token takes its whole family with it.
     * The client revokes on its user's behalf: the audit entry names the user as actor and the client as target.
     */
    async revoke(
      found: { row: { id: string; familyId: string; user: { id: string; name: string }; client: { clientId: string } }; kind: "access_token" | "refresh_token" },
      ip: string | undefined,
    ): Promise<void> {
      if (found.kind === "refresh_token") await revokeFamilies([found.row.familyId]);
      else await db.oAuthToken.updateMany({ where: { id: found.row.id, revokedAt: null }, data: { revokedAt: new Date() } });
      const by = { ...found.row.user, ip };
      await audit.by(by, "oauth.revoke", { type: "oauth_client", id: found.row.client.clientId }, { via: "client", tokenType: found.kind });
    },

    /** True when the user already granted every one of these scopes to the client. */
    async hasConsent(userId: string, clientId: string, scopes: string[]): Promise<boolean> {
      const consent = await db.oAuthConsent.findUnique({ where: { userId_clientId: { userId, clientId } } });
      if (!consent) return false;
      const granted = new Set(parseScope(consent.scope).scopes as string[]);
      return scopes.every((s) => granted.has(s));
    },

    /** Adds the scopes to what the user granted the client (consent only grows until the app is revoked). */
    async rememberConsent(by: Acting, client: { id: string; clientId: string }, scopes: string[]): Promise<void> {
      const userId = by.id;
      const clientId = client.id;
      const existing = await db.oAuthConsent.findUnique({ where: { userId_clientId: { userId, clientId } } });
      const scope = [...new Set([...parseScope(existing?.scope).scopes, ...scopes])].join(" ");
      await db.oAuthConsent.upsert({
        where: { userId_clientId: { userId, clientId } },
        create: { userId, clientId, scope },
        update: { scope },
      });
      await audit.by(by, "oauth.consent", { type: "oauth_client", id: client.clientId }, { scopes });
    },

    /** A page of the apps the user authorized, newest first; `after` names the last app of the previous page. */
    async authorizedApps(userId: string, page: Page) {
      const after = page.after ? await db.oAuthClient.findUnique({ where: { clientId: page.after }, select: { id: true } }) : null;
      if (page.after && !after) return [];
      const consents = await db.oAuthConsent.findMany({
        where: { userId },
        orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(after ? { cursor: { userId_clientId: { userId, clientId: after.id } }, skip: 1 } : {}),
        include: { client: { select: { clientId: true, name: true, description: true } } },
      });
      return consents.map((c) => ({ ...c.client, scopes: parseScope(c.scope).scopes as string[], authorizedAt: c.createdAt, updatedAt: c.updatedAt }));
    },

    /** Forgets the consent, then revokes every token the app holds for the user (see the header for the order). Idempotent. */
    async revokeApp(by: Acting, clientId: string): Promise<boolean> {
      const userId = by.id;
      const client = await db.oAuthClient.findUnique({ where: { clientId }, select: { id: true } });
      if (!client) return false;
      const now = new Date();
      const where = { userId, clientId: client.id };
      const consents = await db.oAuthConsent.deleteMany({ where });
      const [revoked] = await Promise.all([
        db.oAuthToken.updateMany({ where: { ...where, revokedAt: null }, data: { revokedAt: now } }),
        // Grants approved but not yet exchanged would otherwise still turn into tokens.
        db.oAuthAuthorizationCode.updateMany({ where: { ...where, usedAt: null }, data: { usedAt: now } }),
        db.oAuthDeviceCode.updateMany({ where: { ...where, status: "APPROVED" }, data: { status: "DENIED" } }),
      ]);
      const had = consents.count + revoked.count > 0;
      if (had) await audit.by(by, "oauth.revoke", { type: "oauth_client", id: clientId }, { via: "user", tokens: revoked.count });
      return had;
    },
  };
}

export type OAuthGrantService = ReturnType<typeof createOAuthGrantService>;
