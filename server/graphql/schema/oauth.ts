// OAuth: the clients a developer registers, the apps a user authorized, and userinfo (REST: /api/oauth/clients,
// /oauth/userinfo). The protocol endpoints themselves (authorize, token, device, revoke, introspect) are in
// server/oauth/.
import { isScope, SCOPE_DESCRIPTIONS, SCOPES } from "../../auth/scopes.ts";
import { InvalidRequestError, NotFoundError } from "../../errors.ts";
import { MAX_SECRETS, type ClientSecretInfo, type OAuthClientRecord } from "../../services/oauth-clients.ts";
import { builder } from "../builder.ts";
import { acting } from "../context.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";
import { RoleEnum, UserStatusEnum } from "./user.ts";

type ClientWithSecret = OAuthClientRecord & { clientSecret: string };

const OAuthClientSecret = builder.objectRef<ClientSecretInfo>("OAuthClientSecret").implement({
  description: "One of a confidential client's secrets (never the secret itself): each works until deleted",
  fields: (t) => ({
    id: t.exposeID("id"),
    lastFour: t.exposeString("lastFour", { description: 'The secret\'s last four characters, to tell secrets apart; "" for secrets made before they were kept' }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true, description: "When the token endpoint last accepted it (to the minute); null if never" }),
  }),
});

export const OAuthClient = builder.objectRef<OAuthClientRecord>("OAuthClient").implement({
  description: "An application registered to sign users in with Slipway (an OAuth 2.0 client)",
  fields: () => ({}),
});
const OAuthClientWithSecret = builder.objectRef<ClientWithSecret>("OAuthClientWithSecret");

// Both types share the client's fields (REST answers the created client flat, with its secret beside them).
for (const ref of [OAuthClient, OAuthClientWithSecret as unknown as typeof OAuthClient]) {
  builder.objectFields(ref, (t) => ({
    clientId: t.exposeString("clientId", { description: "The public client id (svc_…)" }),
    name: t.exposeString("name"),
    description: t.exposeString("description"),
    homepageUrl: t.exposeString("homepageUrl", { description: 'Shown on the consent page; "" when none' }),
    logoFileId: t.exposeString("logoFileId", { nullable: true, description: "The CDN file shown as the app's logo" }),
    logoUrl: t.string({ nullable: true, description: "Where the logo is served (GET, redirects to the bytes)", resolve: (c) => (c.logoFileId ? `/api/cdn/${c.logoFileId}` : null) }),
    redirectUris: t.exposeStringList("redirectUris", { description: "Exact URIs the authorization code may be sent to (loopback IPs on any port)" }),
    public: t.exposeBoolean("public", { description: "A public client (CLI, SPA) has no secret and must use PKCE" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    secrets: t.field({
      type: [OAuthClientSecret],
      description: `The client's secrets, oldest first (at most ${MAX_SECRETS}; none for a public client)`,
      complexity: { field: 10, multiplier: MAX_SECRETS },
      resolve: (client, _args, ctx) => ctx.services.oauthClients.secrets(client.id),
    }),
  }));
}

builder.objectType(OAuthClientWithSecret, {
  description: "A confidential client with its secret, returned only when the secret is created or rotated",
  fields: (t) => ({
    clientSecret: t.exposeString("clientSecret", { description: "Shown once: store it now" }),
  }),
});

// A public client has no secret, so registering one answers a plain OAuthClient (REST: no clientSecret key).
const CreateOAuthClientResult = builder.unionType("MutationCreateOAuthClientResult", {
  types: [OAuthClientWithSecret, OAuthClient, InvalidRequestError],
  resolveType: (value) =>
    value instanceof InvalidRequestError ? "InvalidRequestError" : "clientSecret" in value ? "OAuthClientWithSecret" : "OAuthClient",
});

const AuthorizedApp = builder
  .objectRef<{ clientId: string; name: string; description: string; scopes: string[]; authorizedAt: Date }>("AuthorizedApp")
  .implement({
    description: "An application the signed-in user allowed to access their account",
    fields: (t) => ({
      clientId: t.exposeString("clientId"),
      name: t.exposeString("name"),
      description: t.exposeString("description"),
      scopes: t.exposeStringList("scopes", { description: "The scopes granted" }),
      permissions: t.stringList({
        description: "What the granted scopes let the app do, in plain words (as the consent page says them)",
        resolve: (app) => app.scopes.map((scope) => (isScope(scope) ? SCOPE_DESCRIPTIONS[scope] : scope)),
      }),
      authorizedAt: t.expose("authorizedAt", { type: "DateTime" }),
    }),
  });

const UserInfo = builder.objectRef<{
  id: string;
  name: string;
  email: string;
  avatar: string | null;
  role: "USER" | "ADMIN";
  status: "ACTIVE" | "PENDING" | "SUSPENDED";
  scopes: string[];
}>("UserInfo").implement({
  description: "The signed-in user as an OAuth client sees them (REST: GET /oauth/userinfo)",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    preferredUsername: t.exposeString("name"),
    email: t.exposeString("email"),
    avatar: t.exposeString("avatar", { nullable: true }),
    role: t.expose("role", { type: RoleEnum }),
    status: t.expose("status", { type: UserStatusEnum }),
    scopes: t.exposeStringList("scopes", { description: "The scopes this access token (or session) holds" }),
  }),
});

const OAuthClientPreview = builder.objectRef<{ name: string; homepageUrl: string; ownerName: string | null }>("OAuthClientPreview").implement({
  description: "An OAuth client as anyone asked to authorize it may see it",
  fields: (t) => ({
    name: t.exposeString("name"),
    homepageUrl: t.exposeString("homepageUrl"),
    ownerName: t.exposeString("ownerName", { nullable: true, description: "The handle of the user who registered it; null for Slipway's own" }),
  }),
});

const CreateOAuthClientInput = builder.inputType("CreateOAuthClientInput", {
  fields: (t) => ({
    name: t.string({ description: "Shown to users on the consent page (1–100 characters)" }),
    description: t.string({ required: false, description: "Shown on the consent page (up to 500 characters)" }),
    homepageUrl: t.string({ required: false, description: "An https URL shown on the consent page" }),
    logoFileId: t.string({ required: false, description: "One of your CDN files (PNG, JPEG, GIF or WebP) shown as the logo" }),
    redirectUris: t.stringList({ description: "Absolute https URLs, or http for localhost/loopback; RFC 3986 (ASCII, percent-encoded); no fragments, no wildcards" }),
    public: t.boolean({ required: false, description: "A public client gets no secret and must use PKCE (default false)" }),
  }),
});

const UpdateOAuthClientInput = builder.inputType("UpdateOAuthClientInput", {
  fields: (t) => ({
    name: t.string({ required: false }),
    description: t.string({ required: false }),
    homepageUrl: t.string({ required: false, description: '"" removes it' }),
    logoFileId: t.string({ required: false, description: '"" removes it' }),
    redirectUris: t.stringList({ required: false, description: "Replaces the list; the same rules as at registration" }),
  }),
});


builder.queryFields((t) => ({
  oauthClients: t.withAuth({ "read:user": true }).field({
    type: [OAuthClient],
    description: "The OAuth clients you registered, newest first (never their secrets), a page at a time",
    args: pageArgs(t.arg, "clientId"),
    complexity: pageCost,
    resolve: (_root, args, ctx) => ctx.services.oauthClients.listMine(ctx.viewer.user.id, pageOf(args)),
  }),
  oauthClient: t.withAuth({ "read:user": true }).field({
    type: OAuthClient,
    description: "One of the OAuth clients you registered",
    args: { clientId: t.arg.string() },
    errors: { types: [NotFoundError] },
    resolve: (_root, { clientId }, ctx) => ctx.services.oauthClients.mine(ctx.viewer.user.id, clientId),
  }),
  oauthClientPreview: t.field({
    type: OAuthClientPreview,
    nullable: true,
    description: "What the sign-in page says about the app a visitor signs in for (public: the consent page shows it too); null for an unknown id",
    args: { clientId: t.arg.string() },
    resolve: (_root, { clientId }, ctx) => ctx.services.oauthClients.forConsent(clientId),
  }),
  authorizedApps: t.withAuth({ "read:user": true }).field({
    type: [AuthorizedApp],
    description: "The applications you authorized, most recently authorized first, a page at a time",
    args: pageArgs(t.arg, "clientId"),
    complexity: pageCost,
    resolve: (_root, args, ctx) => ctx.services.oauthGrants.authorizedApps(ctx.viewer.user.id, pageOf(args)),
  }),
  userinfo: t.withAuth({ "read:user": true }).field({
    type: UserInfo,
    resolve: async (_root, _args, ctx) => ({
      ...(await ctx.services.accounts.user(ctx.viewer.user.id)),
      scopes: SCOPES.filter((s) => ctx.viewer.scopes.has(s)),
    }),
  }),
}));

builder.mutationFields((t) => ({
  createOAuthClient: t.withAuth({ "write:user": true }).field({
    type: CreateOAuthClientResult,
    description: "Register an OAuth client; a confidential client's secret is in the answer and never shown again",
    args: { input: t.arg({ type: CreateOAuthClientInput }) },
    resolve: async (_root, { input }, ctx) => {
      try {
        const { client, clientSecret } = await ctx.services.oauthClients.register(acting(ctx), input);
        return clientSecret ? { ...client, clientSecret } : client;
      } catch (error) {
        if (error instanceof InvalidRequestError) return error;
        throw error;
      }
    },
  }),
  updateOAuthClient: t.withAuth({ "write:user": true }).field({
    type: OAuthClient,
    args: { clientId: t.arg.string(), input: t.arg({ type: UpdateOAuthClientInput }) },
    errors: { types: [InvalidRequestError, NotFoundError] },
    resolve: (_root, { clientId, input }, ctx) => ctx.services.oauthClients.update(ctx.viewer.user.id, clientId, input),
  }),
  deleteOAuthClient: t.withAuth({ "write:user": true }).field({
    type: OAuthClient,
    description: "Delete a client: every token it holds stops working",
    args: { clientId: t.arg.string() },
    errors: { types: [NotFoundError] },
    resolve: (_root, { clientId }, ctx) => ctx.services.oauthClients.remove(acting(ctx), clientId),
  }),
  rotateOAuthClientSecret: t.withAuth({ "write:user": true }).field({
    type: OAuthClientWithSecret,
    description: `Add a secret to the client (at most ${MAX_SECRETS}); the older ones keep working until deleted with deleteOAuthClientSecret`,
    args: { clientId: t.arg.string() },
    errors: { types: [InvalidRequestError, NotFoundError] },
    resolve: async (_root, { clientId }, ctx) => {
      const { client, clientSecret } = await ctx.services.oauthClients.rotateSecret(acting(ctx), clientId);
      return { ...client, clientSecret };
    },
  }),
  deleteOAuthClientSecret: t.withAuth({ "write:user": true }).field({
    type: OAuthClientSecret,
    description: "Delete one of the client's secrets: it stops working at once",
    args: { clientId: t.arg.string(), secretId: t.arg.string() },
    errors: { types: [NotFoundError] },
    resolve: (_root, { clientId, secretId }, ctx) => ctx.services.oauthClients.deleteSecret(acting(ctx), clientId, secretId),
  }),
  revokeAuthorizedApp: t.withAuth({ "write:user": true }).boolean({
    description: "Withdraw an application's access: forgets the consent and revokes its tokens. True when it had any.",
    args: { clientId: t.arg.string() },
    resolve: (_root, { clientId }, ctx) => ctx.services.oauthGrants.revokeApp(acting(ctx), clientId),
  }),
}));
