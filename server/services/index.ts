// Every entry point (GraphQL resolvers, REST through GraphQL, OAuth, workers) uses these services.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { OAuthTokenStore } from "../db/oauth-token-store.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { CounterStore } from "../platform/ratelimit/index.ts";
import type { ReadCache } from "../platform/read-cache.ts";
import { createAccountService } from "./accounts.ts";
import { createOAuthClientService } from "./oauth-clients.ts";
import { createOAuthDeviceCodeService } from "./oauth-device-codes.ts";
import { createOAuthGrantService } from "./oauth-grants.ts";
import { createSessionService } from "./sessions.ts";

export interface ServiceDeps {
  db: Db;
  config: Config;
  counters: CounterStore;
  pubsub: PubSub;
  cache: ReadCache;
  /** Prepared SQL for the token endpoint's hot path (db/oauth-token-store.ts). */
  tokens: OAuthTokenStore;
}

export function createServices(deps: ServiceDeps) {
  const sessions = createSessionService(deps.db);
  return {
    sessions,
    accounts: createAccountService({ ...deps, sessions }),
    oauthClients: createOAuthClientService(deps.db, deps.tokens, deps.cache),
    oauthGrants: createOAuthGrantService(deps.db, deps.tokens),
    oauthDeviceCodes: createOAuthDeviceCodeService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
