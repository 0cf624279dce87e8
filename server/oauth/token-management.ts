// POST /oauth/revoke (RFC 7009) and POST /oauth/introspect (RFC 7662). Rules:
// - form body; the calling client authenticates (client-auth.ts) and only ever sees or revokes tokens
//   issued to itself: for anyone else's token it gets the same answer as for an unknown one;
// - introspection is for confidential clients only (RFC 7662 §2.1 wants an authorized caller, and a
//   public client's client_id is no secret): a public client gets invalid_client. Revocation stays open
//   to public clients (RFC 7009 §2.1), for their own tokens;
// - revoke answers 200 whatever the token; an access token is revoked with the refresh token issued beside
//   it, a refresh token with its whole family (every token of that grant);
// - introspect answers {active: false} for unknown, expired, revoked, rotated or foreign tokens; active
//   tokens report the scopes they can still use (the owner's role may have changed since): an access
//   token its own, a refresh token its grant's.
import type { FastifyInstance } from "fastify";
import { scopesForRole, parseScope } from "../auth/scopes.ts";
import { InvalidRequestError } from "../errors.ts";
import { authenticateClient } from "./client-auth.ts";
import { invalidClient } from "./errors.ts";
import { param, requireFormBody } from "./params.ts";
import type { OAuthContext } from "./routes.ts";

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const PUBLIC_INTROSPECTION =
  "Only confidential clients may introspect tokens: authenticate with the client's secret. A public client can read its token's user and scopes at /oauth/userinfo.";

export function registerTokenManagement(app: FastifyInstance, ctx: OAuthContext) {
  const { oauthClients, oauthGrants } = ctx.platform.services;

  async function presented(request: Parameters<typeof authenticateClient>[0], caller: "any client" | "confidential client") {
    requireFormBody(request);
    const client = await authenticateClient(request, oauthClients);
    if (caller === "confidential client" && client.public) throw invalidClient(false, PUBLIC_INTROSPECTION);
    const token = param(request.body, "token");
    if (!token) throw new InvalidRequestError("Missing parameter: token.");
    const found = await oauthGrants.findToken(token, param(request.body, "token_type_hint"));
    return found && found.row.clientId === client.id ? found : null;
  }

  app.post("/oauth/revoke", async (request, reply) => {
    const found = await presented(request, "any client");
    if (found) await oauthGrants.revoke(found, request.ip);
    return reply.status(200).header("Cache-Control", "no-store").send();
  });

  app.post("/oauth/introspect", async (request, reply) => {
    const found = await presented(request, "confidential client");
    reply.header("Cache-Control", "no-store");
    if (!found) return { active: false };
    const { row, kind } = found;
    const now = new Date();
    const live = kind === "access_token" ? row.accessTokenExpiresAt > now : !row.rotatedAt;
    if (row.revokedAt || !live || row.user.status === "SUSPENDED") return { active: false };
    const allowed = scopesForRole(row.user.role);
    return {
      active: true,
      scope: parseScope(kind === "access_token" ? row.scope : row.grantScope).scopes.filter((s) => allowed.has(s)).join(" "),
      client_id: row.client.clientId,
      username: row.user.name,
      sub: row.user.id,
      iss: ctx.issuer,
      iat: seconds(row.createdAt),
      ...(kind === "access_token" ? { token_type: "Bearer", exp: seconds(row.accessTokenExpiresAt) } : {}),
    };
  });
}
