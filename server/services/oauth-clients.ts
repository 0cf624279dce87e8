// OAuth clients that developers register: `svc_…` ids, secrets shown once and stored as SHA-256 hashes
// (several at a time, so a secret can be rotated without downtime: each works until its owner deletes
// it), redirect URIs checked for exact use later (oauth-client-rules.ts, also applied to stored URIs
// before use). Shared by GraphQL (and so REST) and the OAuth endpoints.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client.ts";
import type { OAuthTokenStore } from "../db/oauth-token-store.ts";
import type { ReadCache } from "../platform/read-cache.ts";
import { InvalidRequestError, NotFoundError } from "../errors.ts";
import { hashToken, randomToken } from "../auth/secrets.ts";
import type { Acting, AuditService } from "./audit.ts";
import type { Page } from "./pages.ts";
import { clientRules } from "./oauth-client-rules.ts";
import { validate } from "./validation.ts";

export { redirectUriProblem } from "./oauth-client-rules.ts";

export interface OAuthClientInput {
  name: string;
  description?: string | null;
  homepageUrl?: string | null;
  /** One of the owner's CDN files, an image. */
  logoFileId?: string | null;
  redirectUris: string[];
  public?: boolean | null;
}

/** What authenticating a client tells: enough to issue and check tokens. */
export type AuthenticatedClient = Pick<OAuthClientRecord, "id" | "clientId" | "name" | "public">;

export interface OAuthClientUpdate {
  name?: string | null;
  description?: string | null;
  /** "" removes it. */
  homepageUrl?: string | null;
  /** "" removes it. */
  logoFileId?: string | null;
  redirectUris?: string[] | null;
}

export interface OAuthClientRecord {
  id: string;
  clientId: string;
  name: string;
  description: string;
  homepageUrl: string;
  logoFileId: string | null;
  redirectUris: string[];
  public: boolean;
  /** Null for a first-party client (FIRST_PARTY_CLIENTS), which belongs to no user. */
  ownerId: string | null;
  createdAt: Date;
}

/** A client as the consent page shows it: with its owner's name (null: Slipway's own). */
export type ClientForConsent = OAuthClientRecord & { ownerName: string | null };

/** A secret as its owner sees it, never the secret itself. */
export interface ClientSecretInfo {
  id: string;
  lastFour: string;
  createdAt: Date;
  lastUsedAt: Date | null;
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

/** GitHub's limit too: enough to rotate without a gap, few enough to list on one page. */
export const MAX_SECRETS = 5;
/** How often the token endpoint records a secret's use: "last used" needs no finer grain than this. */
const TOUCH_INTERVAL_MS = 60_000;
/** Image types a browser shows without running anything (no SVG), for logos. */
const LOGO_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function newClientId(): string {
  return `svc_${randomBytes(12).toString("hex")}`;
}

type ClientRow = Awaited<ReturnType<Db["oAuthClient"]["findUniqueOrThrow"]>>;

function record(row: ClientRow): OAuthClientRecord {
  const { id, clientId, name, description, homepageUrl, logoFileId, public: isPublic, ownerId, createdAt } = row;
  return { id, clientId, name, description, homepageUrl, logoFileId, public: isPublic, ownerId, createdAt, redirectUris: (row.redirectUris as string[] | null) ?? [] };
}

const notFound = () => new NotFoundError("No OAuth app with this client ID among yours.");
const validId = (clientId: string) => clientId.startsWith("svc_") && clientId.length <= 100;

function newSecret() {
  const secret = randomToken(32);
  return { secret, data: { secretHash: hashToken(secret), lastFour: secret.slice(-4) } };
}

/**
 * authenticate() runs on every token endpoint request: it reads through `tokens` (prepared SQL) and the
 * read cache, which every write to OAuth clients and their secrets clears.
 */
export function createOAuthClientService(db: Db, tokens: OAuthTokenStore, cache: ReadCache, audit: AuditService) {
  async function owned(ownerId: string, clientId: string) {
    const row = await db.oAuthClient.findUnique({ where: { clientId } });
    if (!row || row.ownerId !== ownerId) throw notFound();
    return row;
  }

  /** The logo must be an image among the owner's own CDN files. */
  async function checkLogo(ownerId: string, logoFileId: string | null | undefined) {
    if (!logoFileId) return;
    const file = typeof logoFileId === "string" && logoFileId.length <= 100 ? await db.file.findUnique({ where: { id: logoFileId } }) : null;
    if (!file || file.ownerId !== ownerId) {
      throw new InvalidRequestError("No CDN file with this id among yours: upload the logo on the CDN page first.", { logoFileId: "Choose one of your CDN files." });
    }
    if (!LOGO_TYPES.has(file.contentType)) {
      throw new InvalidRequestError("The logo must be a PNG, JPEG, GIF or WebP image.", { logoFileId: `"${file.name}" is ${file.contentType}, not a PNG, JPEG, GIF or WebP image.` });
    }
  }

  return {
    /** Registers a client; the secret (confidential clients only) is returned here and never again. */
    async register(by: Acting, input: OAuthClientInput): Promise<{ client: OAuthClientRecord; clientSecret: string | null }> {
      const ownerId = by.id;
      validate(input as unknown as Record<string, unknown>, clientRules);
      await checkLogo(ownerId, input.logoFileId);
      const isPublic = input.public ?? false;
      const secret = isPublic ? null : newSecret();
      const row = await db.oAuthClient.create({
        data: {
          clientId: newClientId(),
          name: input.name.trim(),
          description: input.description?.trim() ?? "",
          homepageUrl: input.homepageUrl?.trim() ?? "",
          logoFileId: input.logoFileId || null,
          redirectUris: [...new Set(input.redirectUris)],
          public: isPublic,
          ownerId,
          ...(secret ? { secrets: { create: secret.data } } : {}),
        },
      });
      await audit.by(by, "oauth.client_create", { type: "oauth_client", id: row.clientId }, { name: row.name, public: isPublic });
      return { client: record(row), clientSecret: secret?.secret ?? null };
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

    /** One of the owner's clients. */
    async mine(ownerId: string, clientId: string): Promise<OAuthClientRecord> {
      return record(await owned(ownerId, clientId));
    },

    async update(ownerId: string, clientId: string, input: OAuthClientUpdate): Promise<OAuthClientRecord> {
      await owned(ownerId, clientId);
      const present = Object.fromEntries(Object.entries(clientRules).filter(([field]) => (input as Record<string, unknown>)[field] != null));
      validate(input as unknown as Record<string, unknown>, present);
      await checkLogo(ownerId, input.logoFileId);
      const row = await db.oAuthClient.update({
        where: { clientId },
        data: {
          ...(input.name != null ? { name: input.name.trim() } : {}),
          ...(input.description != null ? { description: input.description.trim() } : {}),
          ...(input.homepageUrl != null ? { homepageUrl: input.homepageUrl.trim() } : {}),
          ...(input.logoFileId != null ? { logoFileId: input.logoFileId || null } : {}),
          ...(input.redirectUris != null ? { redirectUris: [...new Set(input.redirectUris)] } : {}),
        },
      });
      return record(row);
    },

    /** Deletes the client and, by cascade, its secrets, codes, tokens, consents and device codes. */
    async remove(by: Acting, clientId: string): Promise<OAuthClientRecord> {
      const row = await owned(by.id, clientId);
      // Deleted through the token model (not only by cascade) so cached Bearer lookups are cleared at once.
      await db.oAuthToken.deleteMany({ where: { clientId: row.id } });
      await db.oAuthClient.delete({ where: { clientId } });
      await audit.by(by, "oauth.client_delete", { type: "oauth_client", id: clientId }, { name: row.name });
      return record(row);
    },

    /** The client's secrets, oldest first (never the secrets themselves). */
    async secrets(clientRowId: string): Promise<ClientSecretInfo[]> {
      return db.oAuthClientSecret.findMany({
        where: { clientId: clientRowId },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true, lastFour: true, createdAt: true, lastUsedAt: true },
      });
    },

    /** Adds a secret; the ones before it keep working until deleted (deleteSecret), so apps can switch over. */
    async rotateSecret(by: Acting, clientId: string): Promise<{ client: OAuthClientRecord; clientSecret: string }> {
      const row = await owned(by.id, clientId);
      if (row.public) throw new InvalidRequestError("Public clients have no secret to rotate.", { clientId: "This client is public." });
      if ((await db.oAuthClientSecret.count({ where: { clientId: row.id } })) >= MAX_SECRETS) {
        throw new InvalidRequestError(`An app may have at most ${MAX_SECRETS} secrets: delete one you no longer use first.`, { clientId: "Too many secrets." });
      }
      const secret = newSecret();
      await db.oAuthClientSecret.create({ data: { clientId: row.id, ...secret.data } });
      await audit.by(by, "oauth.client_secret_rotate", { type: "oauth_client", id: clientId }, { name: row.name });
      return { client: record(row), clientSecret: secret.secret };
    },

    /** Deletes one secret: it stops working at once. The last one may go too (the app then cannot get tokens). */
    async deleteSecret(by: Acting, clientId: string, secretId: string): Promise<ClientSecretInfo> {
      const row = await owned(by.id, clientId);
      const secret = await db.oAuthClientSecret.findUnique({ where: { id: secretId } });
      if (!secret || secret.clientId !== row.id) throw new NotFoundError("This app has no secret with this id.");
      await db.oAuthClientSecret.delete({ where: { id: secretId } });
      await audit.by(by, "oauth.client_secret_delete", { type: "oauth_client", id: clientId }, { name: row.name, secretId });
      return { id: secret.id, lastFour: secret.lastFour, createdAt: secret.createdAt, lastUsedAt: secret.lastUsedAt };
    },

    /**
     * Creates or restores the first-party clients at boot: public, no owner, no secret, no redirect URI (the
     * device flow needs none). Two servers booting at once may both try to create one: the loser's unique
     * violation means it exists.
     */
    async ensureFirstParty(): Promise<void> {
      for (const client of FIRST_PARTY_CLIENTS) {
        const fields = { name: client.name, description: client.description, public: true, redirectUris: [], ownerId: null };
        try {
          await db.oAuthClient.upsert({ where: { clientId: client.clientId }, create: { clientId: client.clientId, ...fields }, update: fields });
          await db.oAuthClientSecret.deleteMany({ where: { client: { clientId: client.clientId } } });
        } catch (error) {
          if ((error as { code?: string }).code !== "P2002") throw error;
        }
      }
    },

    /** Looks a client up by its public id (no authentication). */
    async find(clientId: string): Promise<OAuthClientRecord | null> {
      if (!validId(clientId)) return null;
      const row = await db.oAuthClient.findUnique({ where: { clientId } });
      return row ? record(row) : null;
    },

    /** A client with what the consent page tells about it: its owner's name. */
    async forConsent(clientId: string): Promise<ClientForConsent | null> {
      if (!validId(clientId)) return null;
      const row = await db.oAuthClient.findUnique({ where: { clientId }, include: { owner: { select: { name: true } } } });
      return row ? { ...record(row), ownerName: row.owner?.name ?? null } : null;
    },

    /**
     * Authenticates a client: a public client must not send a secret, a confidential one must send one of
     * its secrets (any not deleted), whose use is then recorded. A PKCE code_verifier is not a credential,
     * so it never stands in for the secret.
     */
    async authenticate(clientId: string, secret: string | undefined | null): Promise<AuthenticatedClient | null> {
      if (!validId(clientId)) return null;
      const client = await cache.get(`oauth-client:${clientId}`, () => tokens.findClient(clientId));
      if (!client) return null;
      if (client.public) return secret ? null : client;
      if (!secret) return null;
      const secretHash = hashToken(secret);
      // A cached answer carries when this instance last recorded the use, so most requests write nothing.
      const found = await cache.get(`oauth-secret:${client.id}:${secretHash}`, async () => {
        const row = await tokens.findSecret(client.id, secretHash);
        return row ? { id: row.id, touchedAt: 0 } : null;
      });
      if (!found) return null;
      const now = Date.now();
      if (now - found.touchedAt >= TOUCH_INTERVAL_MS) {
        found.touchedAt = now;
        await tokens.touchSecret(found.id, new Date(now), TOUCH_INTERVAL_MS);
      }
      return client;
    },
  };
}

export type OAuthClientService = ReturnType<typeof createOAuthClientService>;
