// OAuth clients that developers register: `svc_…` ids, secrets shown once and stored as SHA-256 hashes,
// redirect URIs checked for exact use later (redirectUriProblem, also applied to stored URIs before use).
// Shared by GraphQL (and so REST) and the OAuth endpoints.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client.ts";
import type { OAuthTokenStore } from "../db/oauth-token-store.ts";
import type { ReadCache } from "../platform/read-cache.ts";
import { InvalidRequestError, NotFoundError } from "../errors.ts";
import { hashToken, randomToken, safeEqual } from "../auth/secrets.ts";
import type { Acting, AuditService } from "./audit.ts";
import type { Page } from "./pages.ts";
import { validate, type Check } from "./validation.ts";

export interface OAuthClientInput {
  name: string;
  description?: string | null;
  redirectUris: string[];
  public?: boolean | null;
}

/** What authenticating a client tells: enough to issue and check tokens. */
export type AuthenticatedClient = Pick<OAuthClientRecord, "id" | "clientId" | "name" | "public">;

export interface OAuthClientUpdate {
  name?: string | null;
  description?: string | null;
  redirectUris?: string[] | null;
}

export interface OAuthClientRecord {
  id: string;
  clientId: string;
  name: string;
  description: string;
  redirectUris: string[];
  public: boolean;
  /** Null for a first-party client (FIRST_PARTY_CLIENTS), which belongs to no user. */
  ownerId: string | null;
  createdAt: Date;
}

/**
 * The public client the `slipway` command-line tool logs in with (device flow, refresh, revocation). Its id
 * is fixed so the CLI needs no configuration; the server creates it at boot (ensureFirstParty) and lists it
 * in its authorization server metadata as `slipway_cli_client_id`.
 */
export const CLI_CLIENT_ID = "svc_slipway_cli";

const FIRST_PARTY_CLIENTS = [
  { clientId: CLI_CLIENT_ID, name: "Slipway CLI", description: "The slipway command-line tool" },
] as const;

const MAX_REDIRECT_URIS = 10;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** RFC 3986 characters only (ASCII: unreserved, reserved, and "%" starting a percent-encoded octet). */
const RFC3986_URI = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;

/** The URI as a browser would send it (non-ASCII percent-encoded, IDN hosts in xn-- form), when that is RFC 3986. */
function encodedForm(value: string): string | null {
  try {
    const href = new URL(value).href;
    return RFC3986_URI.test(href) && href !== value ? href : null;
  } catch {
    return null;
  }
}

/**
 * A redirect URI is used exactly as registered, in a Location header, so it must be a plain RFC 3986 URI:
 * ASCII, percent-encoded, absolute; https, or plain http only for loopback (CLIs, local development);
 * no fragment (RFC 6749 §3.1.2), no credentials, no wildcard (matching is exact, never by pattern).
 */
export function redirectUriProblem(value: string): string | null {
  if (value.includes("*")) return `"${value}" contains a wildcard (*): wildcards are not supported, register each redirect URI exactly as it is used.`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not an absolute URL.`;
  }
  if (!RFC3986_URI.test(value)) {
    const encoded = encodedForm(value);
    return `"${value}" must be an RFC 3986 URI: ASCII only, with other characters percent-encoded${encoded ? ` (register "${encoded}")` : ""}.`;
  }
  if (value.includes("#")) return `"${value}" must not contain a fragment (#).`;
  if (url.username || url.password) return `"${value}" must not contain credentials.`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && (LOOPBACK_HOSTS.has(url.hostname) || url.hostname.endsWith(".localhost"))) return null;
  return `"${value}" must use https (http is only allowed for localhost and loopback addresses).`;
}

const rules = {
  name: (v) => (typeof v !== "string" || !v.trim() || v.length > 100 ? "Give the app a name of 1 to 100 characters." : null),
  description: (v) => (v != null && (typeof v !== "string" || v.length > 500) ? "Use at most 500 characters." : null),
  redirectUris: (v) => {
    if (!Array.isArray(v)) return "Give a list of redirect URIs.";
    if (v.length > MAX_REDIRECT_URIS) return `Register at most ${MAX_REDIRECT_URIS} redirect URIs.`;
    if (v.some((u) => typeof u !== "string" || u.length > 2000)) return "Each redirect URI must be a URL of at most 2000 characters.";
    return v.map((u: string) => redirectUriProblem(u)).find(Boolean) ?? null;
  },
} satisfies Record<string, Check>;

function newClientId(): string {
  return `svc_${randomBytes(12).toString("hex")}`;
}

type ClientRow = Awaited<ReturnType<Db["oAuthClient"]["findUniqueOrThrow"]>>;

function record(row: ClientRow): OAuthClientRecord {
  const { id, clientId, name, description, public: isPublic, ownerId, createdAt } = row;
  return { id, clientId, name, description, public: isPublic, ownerId, createdAt, redirectUris: (row.redirectUris as string[] | null) ?? [] };
}

const notFound = () => new NotFoundError("No OAuth app with this client ID among yours.");

/**
 * authenticate() runs on every token endpoint request: it reads through `tokens` (prepared SQL) and the
 * read cache, which every write to OAuth clients clears.
 */
export function createOAuthClientService(db: Db, tokens: OAuthTokenStore, cache: ReadCache, audit: AuditService) {
  async function owned(ownerId: string, clientId: string) {
    const row = await db.oAuthClient.findUnique({ where: { clientId } });
    if (!row || row.ownerId !== ownerId) throw notFound();
    return row;
  }

  return {
    /** Registers a client; the secret (confidential clients only) is returned here and never again. */
    async register(by: Acting, input: OAuthClientInput): Promise<{ client: OAuthClientRecord; clientSecret: string | null }> {
      const ownerId = by.id;
      validate(input as unknown as Record<string, unknown>, rules);
      const isPublic = input.public ?? false;
      const clientSecret = isPublic ? null : randomToken(32);
      const row = await db.oAuthClient.create({
        data: {
          clientId: newClientId(),
          secretHash: clientSecret ? hashToken(clientSecret) : null,
          name: input.name.trim(),
          description: input.description?.trim() ?? "",
          redirectUris: [...new Set(input.redirectUris)],
          public: isPublic,
          ownerId,
        },
      });
      await audit.by(by, "oauth.client_create", { type: "oauth_client", id: row.clientId }, { name: row.name, public: isPublic });
      return { client: record(row), clientSecret };
    },

    /** A page of the owner's clients, newest first; `after` names the last client of the previous page. */
    async listMine(ownerId: string, page: Page): Promise<OAuthClientRecord[]> {
      const rows = await db.oAuthClient.findMany({
        where: { ownerId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(page.after ? { cursor: { clientId: page.after }, skip: 1 } : {}),
      });
      return rows.map(record);
    },

    async update(ownerId: string, clientId: string, input: OAuthClientUpdate): Promise<OAuthClientRecord> {
      await owned(ownerId, clientId);
      const present = Object.fromEntries(Object.entries(rules).filter(([field]) => (input as Record<string, unknown>)[field] != null));
      validate(input as unknown as Record<string, unknown>, present);
      const row = await db.oAuthClient.update({
        where: { clientId },
        data: {
          ...(input.name != null ? { name: input.name.trim() } : {}),
          ...(input.description != null ? { description: input.description.trim() } : {}),
          ...(input.redirectUris != null ? { redirectUris: [...new Set(input.redirectUris)] } : {}),
        },
      });
      return record(row);
    },

    /** Deletes the client and, by cascade, its codes, tokens, consents and device codes. */
    async remove(by: Acting, clientId: string): Promise<OAuthClientRecord> {
      const row = await owned(by.id, clientId);
      // Deleted through the token model (not only by cascade) so cached Bearer lookups are cleared at once.
      await db.oAuthToken.deleteMany({ where: { clientId: row.id } });
      await db.oAuthClient.delete({ where: { clientId } });
      await audit.by(by, "oauth.client_delete", { type: "oauth_client", id: clientId }, { name: row.name });
      return record(row);
    },

    /** A new secret replaces the old one at once; tokens already issued stay valid. */
    async rotateSecret(by: Acting, clientId: string): Promise<{ client: OAuthClientRecord; clientSecret: string }> {
      const row = await owned(by.id, clientId);
      if (row.public) throw new InvalidRequestError("Public clients have no secret to rotate.", { clientId: "This client is public." });
      const clientSecret = randomToken(32);
      const updated = await db.oAuthClient.update({ where: { clientId }, data: { secretHash: hashToken(clientSecret) } });
      await audit.by(by, "oauth.client_secret_rotate", { type: "oauth_client", id: clientId }, { name: row.name });
      return { client: record(updated), clientSecret };
    },

    /**
     * Creates or restores the first-party clients at boot: public, no owner, no secret, no redirect URI (the
     * device flow needs none). Two servers booting at once may both try to create one: the loser's unique
     * violation means it exists.
     */
    async ensureFirstParty(): Promise<void> {
      for (const client of FIRST_PARTY_CLIENTS) {
        const fields = { name: client.name, description: client.description, public: true, redirectUris: [], ownerId: null, secretHash: null };
        try {
          await db.oAuthClient.upsert({ where: { clientId: client.clientId }, create: { clientId: client.clientId, ...fields }, update: fields });
        } catch (error) {
          if ((error as { code?: string }).code !== "P2002") throw error;
        }
      }
    },

    /** Looks a client up by its public id (no authentication). */
    async find(clientId: string): Promise<OAuthClientRecord | null> {
      if (!clientId.startsWith("svc_") || clientId.length > 100) return null;
      const row = await db.oAuthClient.findUnique({ where: { clientId } });
      return row ? record(row) : null;
    },

    /**
     * Authenticates a client: a public client must not send a secret, a confidential one must send its own.
     * A PKCE code_verifier is not a credential, so it never stands in for the secret.
     */
    async authenticate(clientId: string, secret: string | undefined | null): Promise<AuthenticatedClient | null> {
      if (!clientId.startsWith("svc_") || clientId.length > 100) return null;
      const row = await cache.get(`oauth-client:${clientId}`, () => tokens.findClient(clientId));
      if (!row) return null;
      const { secretHash, ...client } = row;
      if (row.public) return secret ? null : client;
      if (!secret || !secretHash || !safeEqual(hashToken(secret), secretHash)) return null;
      return client;
    },
  };
}

export type OAuthClientService = ReturnType<typeof createOAuthClientService>;
