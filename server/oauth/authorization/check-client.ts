// Authorization request, check 1: the client. Rules:
// - client_id is required, given once, and names a registered client;
// - a failure is shown on an error page, never redirected: without a known client there is no trusted
//   place to send the browser.
import { InvalidRequestError } from "../../errors.ts";
import type { OAuthClientRecord, OAuthClientService } from "../../services/oauth-clients.ts";
import { invalidClient } from "../errors.ts";
import { param } from "../params.ts";

export async function checkClient(params: unknown, clients: OAuthClientService): Promise<OAuthClientRecord> {
  const clientId = param(params, "client_id");
  if (!clientId) throw new InvalidRequestError("The request names no client (client_id is missing).");
  const client = await clients.find(clientId);
  if (!client) throw invalidClient(false, "No application is registered with this client_id.");
  return client;
}
