// Client authentication (RFC 6749 §2.3), one set of rules for every protocol endpoint:
// - credentials come from HTTP Basic (RFC 6749 §2.3.1: id and secret form-encoded) or from the body
//   (`client_id` + `client_secret`), never both: Basic with a body client_secret is invalid_request, a
//   body client_id that contradicts Basic is invalid_client;
// - public clients send only their client_id; confidential clients must send their own secret;
// - any failure is invalid_client (401), with `WWW-Authenticate: Basic` when Basic was tried.
// The token endpoint checks the credentials here (clientCredentials) and the library authenticates them
// through the model; device authorization, revoke and introspect authenticate here (authenticateClient).
import type { FastifyRequest } from "fastify";
import { InvalidRequestError } from "../errors.ts";
import type { AuthenticatedClient, OAuthClientService } from "../services/oauth-clients.ts";
import { invalidClient } from "./errors.ts";
import { param } from "./params.ts";

interface Credentials {
  clientId: string;
  clientSecret?: string;
  basic: boolean;
}

function decodeFormComponent(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

/** HTTP Basic client credentials, form-decoded as RFC 6749 §2.3.1 requires (openid-client sends `svc%5F…`). */
function basicCredentials(header: string | undefined): Credentials | null | "malformed" {
  if (!header || !/^Basic\s/i.test(header)) return null;
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, "").trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 1) return "malformed";
  const clientId = decodeFormComponent(decoded.slice(0, colon));
  const clientSecret = decodeFormComponent(decoded.slice(colon + 1));
  if (clientId === null || clientSecret === null) return "malformed";
  return { clientId, clientSecret, basic: true };
}

/** The credentials the client presented, by one method only; null when it presented none. */
export function clientCredentials(request: FastifyRequest): Credentials | null {
  const basic = basicCredentials(request.headers.authorization);
  if (basic === "malformed") throw invalidClient(true, "The Authorization header must be Basic base64(client_id:client_secret).");
  const bodyId = param(request.body, "client_id");
  const bodySecret = param(request.body, "client_secret");
  if (basic && bodySecret) throw new InvalidRequestError("Authenticate the client with HTTP Basic or with client_secret in the body, not both.");
  if (basic && bodyId && bodyId !== basic.clientId) throw invalidClient(true, "The client_id in the body does not match the Basic credentials.");
  return basic ?? (bodyId ? { clientId: bodyId, clientSecret: bodySecret, basic: false } : null);
}

export async function authenticateClient(request: FastifyRequest, clients: OAuthClientService): Promise<AuthenticatedClient> {
  const credentials = clientCredentials(request);
  if (!credentials) throw invalidClient(false, "Identify the client: send client_id (and client_secret for confidential clients) or HTTP Basic credentials.");
  const client = await clients.authenticate(credentials.clientId, credentials.clientSecret);
  if (!client) throw invalidClient(credentials.basic);
  return client;
}
