// The @node-oauth/oauth2-server model: how the library reads and writes clients, codes and tokens.
// Every method delegates to the services (services/oauth-*.ts), which store codes, secrets and tokens
// only as hashes. The `user` object the library passes through untouched also carries the lineage of
// the grant being exchanged (token family, authorization code), so saveToken files new tokens under it.
// getAccessToken is not implemented: Bearer tokens are resolved by auth/viewer.ts, the library's
// authenticate() is never used.
import type OAuth2Server from "@node-oauth/oauth2-server";
import { DEVICE_CODE_GRANT } from "./device-grant.ts";
import { InvalidGrantError, InvalidScopeError } from "../errors.ts";
import { randomToken } from "../auth/secrets.ts";
import { resolveScope, scopesStillAllowed } from "./scope.ts";
import { redirectUriRegistered } from "./authorization/check-redirect-uri.ts";
import type { OAuthClientRecord } from "../services/oauth-clients.ts";
import type { GrantUser } from "../services/oauth-grants.ts";
import type { Services } from "../services/index.ts";

export interface ModelClient extends OAuth2Server.Client {
  id: string;
  clientId: string;
  name: string;
  public: boolean;
  redirectUris: string[];
  grants: string[];
}

export interface ModelUser extends GrantUser {
  familyId?: string;
  authorizationCodeId?: string;
  /** The refresh token being exchanged: retired by saveToken as its successor is stored. */
  refreshTokenId?: string;
  /** That refresh token's scope, the grant's: its successor keeps it even when the new access token asks for less. */
  grantScope?: string[];
}

interface Code {
  id?: string;
  authorizationCode: string;
  expiresAt: Date;
  redirectUri: string;
  scope?: string[];
  codeChallenge?: string;
  codeChallengeMethod?: string;
  client: ModelClient;
  user: ModelUser;
}
type RefreshToken = OAuth2Server.RefreshToken & { id: string; client: ModelClient; user: ModelUser };

export interface Model {
  generateAccessToken(): Promise<string>;
  generateRefreshToken(): Promise<string>;
  generateAuthorizationCode(): Promise<string>;
  getClient(clientId: string, clientSecret?: string | null): Promise<ModelClient | null>;
  validateRedirectUri?(redirectUri: string, client: ModelClient): Promise<boolean>;
  validateScope(user: ModelUser, client: ModelClient, scope?: string[]): Promise<string[]>;
  saveAuthorizationCode(code: Omit<Code, "id" | "client" | "user">, client: ModelClient, user: ModelUser): Promise<Code>;
  getAuthorizationCode(authorizationCode: string): Promise<Code | null>;
  revokeAuthorizationCode(code: Code): Promise<boolean>;
  saveToken(token: OAuth2Server.Token, client: ModelClient, user: ModelUser): Promise<OAuth2Server.Token>;
  getRefreshToken(refreshToken: string): Promise<RefreshToken | null>;
  revokeToken(token: RefreshToken): Promise<boolean>;
  pollDeviceCode(deviceCode: string, client: ModelClient): Promise<{ user: ModelUser; scope: string[] }>;
}

export const CLIENT_GRANTS = ["authorization_code", "refresh_token", DEVICE_CODE_GRANT];

type ClientFields = Pick<OAuthClientRecord, "id" | "clientId" | "name" | "public"> & { redirectUris?: string[] };

export function modelClient(client: ClientFields): ModelClient {
  const { id, clientId, name, public: isPublic, redirectUris = [] } = client;
  return { id, clientId, name, public: isPublic, redirectUris, grants: CLIENT_GRANTS };
}

const words = (scope: string) => scope.split(" ").filter(Boolean);
const subject = (user: GrantUser): ModelUser => ({ id: user.id, role: user.role, status: user.status });

export function createModel(services: Services): Model {
  const { oauthClients, oauthGrants, oauthDeviceCodes } = services;

  return {
    /**
     * Tokens and codes: 256 random bits like every other secret here. The library's own generator gets
     * its bytes through the thread pool, a round trip per token on the token endpoint's hot path.
     */
    generateAccessToken: async () => randomToken(),
    generateRefreshToken: async () => randomToken(),
    generateAuthorizationCode: async () => randomToken(),

    /** Token endpoint: the client authenticated by its secret (none for public clients, and a code_verifier never replaces it); null → invalid_client. */
    async getClient(clientId, clientSecret) {
      const client = await oauthClients.authenticate(clientId, clientSecret);
      return client ? modelClient(client) : null;
    },

    /** The scopes a grant gets: `undefined` (no scope sent) → read:user; unknown names and admin for non-admins → invalid_scope. */
    async validateScope(user, _client, scope) {
      return resolveScope(scope, user);
    },

    /** Stores a new code (hashed) with its redirect URI, scope and PKCE challenge; expires after the provider's code lifetime. */
    async saveAuthorizationCode(code, client, user) {
      const row = await oauthGrants.saveCode({
        code: code.authorizationCode,
        clientId: client.id,
        userId: user.id,
        redirectUri: code.redirectUri,
        scope: code.scope ?? [],
        codeChallenge: code.codeChallenge,
        codeChallengeMethod: code.codeChallengeMethod,
        expiresAt: code.expiresAt,
      });
      return { ...code, id: row.id, client, user };
    },

    /** A code that was never used, of an account not suspended; a replayed code revokes the tokens it issued → null (invalid_grant). */
    async getAuthorizationCode(authorizationCode) {
      const row = await oauthGrants.findCode(authorizationCode);
      if (!row || row.user.status === "SUSPENDED") return null;
      return {
        id: row.id,
        authorizationCode,
        expiresAt: row.expiresAt,
        // Empty when the authorization request sent none: the library then does not demand one here.
        redirectUri: row.redirectUri,
        scope: words(row.scope),
        codeChallenge: row.codeChallenge ?? undefined,
        codeChallengeMethod: row.codeChallengeMethod ?? undefined,
        client: modelClient(row.client),
        user: { ...subject(row.user), authorizationCodeId: row.id },
      };
    },

    /** Single use: marks the code used before PKCE and redirect_uri are checked, so a failed attempt burns it too. */
    async revokeAuthorizationCode(code) {
      return code.id ? oauthGrants.consumeCode(code.id) : false;
    },

    /**
     * Stores the issued tokens (hashed) in the family of their grant, with only the scopes the user's role
     * allows now (the library never re-checks a refresh's scope; none left → invalid_scope, the refresh token
     * untouched). The access token gets the scope asked for; the new refresh token keeps the grant's whole
     * scope (RFC 6749 §6), so asking for less once does not narrow the grant. A refresh exchange retires the
     * old refresh token here, so a refused request (say, a wider scope) leaves it usable. Tokens of a code
     * replayed while they were being issued, or of an app the user revoked meanwhile, are revoked at once →
     * invalid_grant.
     */
    async saveToken(token, client, user) {
      const scope = scopesStillAllowed(token.scope ?? [], user);
      if (!scope.length) throw new InvalidScopeError("This account may no longer use any scope of this grant: authorize the app again.");
      const grantScope = user.grantScope ? scopesStillAllowed(user.grantScope, user) : scope;
      const issued = await oauthGrants.issueTokens({
        accessToken: token.accessToken,
        accessTokenExpiresAt: token.accessTokenExpiresAt!,
        refreshToken: token.refreshToken,
        scope,
        grantScope,
        clientId: client.id,
        userId: user.id,
        familyId: user.familyId,
        authorizationCodeId: user.authorizationCodeId,
        replacesTokenId: user.refreshTokenId,
      });
      if (issued === "replayed") {
        const grant = user.refreshTokenId ? "refresh token" : "authorization code";
        throw new InvalidGrantError(`This ${grant} was presented twice; its tokens have been revoked.`);
      }
      if (issued === "withdrawn") throw new InvalidGrantError("The user revoked this app's access while its tokens were being issued.");
      return { accessToken: token.accessToken, accessTokenExpiresAt: token.accessTokenExpiresAt, refreshToken: token.refreshToken, scope, client, user };
    },

    /** A refresh token not yet rotated nor revoked, of an account not suspended; presenting a rotated one revokes its family → null. */
    async getRefreshToken(refreshToken) {
      const row = await oauthGrants.findRefreshToken(refreshToken);
      if (!row || row.user.status === "SUSPENDED") return null;
      return {
        id: row.id,
        refreshToken,
        scope: words(row.scope),
        client: modelClient(row.client),
        user: { ...subject(row.user), familyId: row.familyId, refreshTokenId: row.id, grantScope: words(row.scope) },
      };
    },

    /** Called by the library before it checks the requested scope, so the rotation itself waits for saveToken. */
    async revokeToken() {
      return true;
    },

    /** Device grant: one poll (pending, slow_down, denied, expired errors are thrown); the approving user and scope once approved. */
    async pollDeviceCode(deviceCode, client) {
      const { user, scope } = await oauthDeviceCodes.poll(deviceCode, client.id);
      if (user.status === "SUSPENDED") throw new InvalidGrantError("The account that approved this device is suspended.");
      return { user: subject(user), scope };
    },
  };
}

/**
 * The model as the authorization endpoint uses it: the browser carries no client secret, so the client is
 * only looked up; the library checks redirect_uri by our rule (loopback IPs on any port); and a code issued
 * to a request without redirect_uri records none, so the token request need not send one
 * (authorization/check-redirect-uri.ts).
 */
export function authorizationModel(model: Model, services: Services, redirectUriSent: boolean): Model {
  return {
    ...model,
    async getClient(clientId) {
      const client = await services.oauthClients.find(clientId);
      return client ? modelClient(client) : null;
    },
    validateRedirectUri: async (redirectUri, client) => redirectUriRegistered(client.redirectUris, redirectUri),
    saveAuthorizationCode: (code, client, user) => model.saveAuthorizationCode(redirectUriSent ? code : { ...code, redirectUri: "" }, client, user),
  };
}
