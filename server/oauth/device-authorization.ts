// POST /api/oauth/device: the device authorization request (RFC 8628 §3.1–3.2). Rules:
// - a JSON or form body with client_id and optional scope; confidential clients authenticate exactly as
//   at the token endpoint (client-auth.ts), public clients send only their client_id;
// - scope: default read:user, unknown names are invalid_scope (admin is checked against the user who
//   approves, on the device page);
// - the answer carries device_code, user_code (XXXX-XXXX), verification_uri(_complete), expires_in and
//   interval, and is never cached.
import type { FastifyInstance } from "fastify";
import { authenticateClient } from "./client-auth.ts";
import { param, requireFormBody } from "./params.ts";
import type { OAuthContext } from "./routes.ts";
import { resolveScope } from "./scope.ts";

export function registerDeviceAuthorization(app: FastifyInstance, ctx: OAuthContext) {
  const { oauthClients, oauthDeviceCodes } = ctx.platform.services;

  app.post("/api/oauth/device", async (request, reply) => {
    requireFormBody(request, { json: true });
    const client = await authenticateClient(request, oauthClients);
    const scopes = resolveScope(param(request.body, "scope"));
    const started = await oauthDeviceCodes.start(client.id, scopes);
    const verificationUri = `${ctx.issuer}/oauth/device`;
    reply.header("Cache-Control", "no-store");
    return {
      device_code: started.deviceCode,
      user_code: started.userCode,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(started.userCode)}`,
      expires_in: started.expiresIn,
      interval: started.interval,
    };
  });
}
