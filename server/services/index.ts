// Every entry point (GraphQL resolvers, REST through GraphQL, OAuth, workers) uses these services.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { OAuthTokenStore } from "../db/oauth-token-store.ts";
import type { MailLogger, Mailer } from "../platform/mail/index.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { CounterStore } from "../platform/ratelimit/index.ts";
import type { ReadCache } from "../platform/read-cache.ts";
import type { HostingEngine } from "../hosting/engine.ts";
import { createAccountService } from "./accounts.ts";
import { createAppService } from "./apps.ts";
import { createDeploymentService } from "./deployments.ts";
import { createEnvService } from "./env.ts";
import { createLogService } from "./logs.ts";
import { createAccountTokenService } from "./account-tokens.ts";
import { createEmailVerificationService } from "./email-verification.ts";
import { createLoginThrottle } from "./login-throttle.ts";
import { createOAuthClientService } from "./oauth-clients.ts";
import { createOAuthDeviceCodeService } from "./oauth-device-codes.ts";
import { createOAuthGrantService } from "./oauth-grants.ts";
import { createPasswordResetService } from "./password-reset.ts";
import { createSessionService } from "./sessions.ts";
import { createUploadService } from "./uploads.ts";
import { createCdnService } from "./cdn.ts";
import { createAuditService } from "./audit.ts";
import type { ObjectStorage } from "../platform/storage/index.ts";
import type { GitHubTokenStore } from "./github-tokens.ts";
import { createGitHubWebhookService } from "./github-webhooks.ts";

export interface ServiceDeps {
  db: Db;
  config: Config;
  counters: CounterStore;
  pubsub: PubSub;
  cache: ReadCache;
  mailer: Mailer;
  logger: MailLogger;
  /** Prepared SQL for the token endpoint's hot path (db/oauth-token-store.ts). */
  tokens: OAuthTokenStore;
  engine: HostingEngine;
  githubTokens: GitHubTokenStore;
  /** CDN files and database backups. */
  storage: ObjectStorage;
}

export function createServices(deps: ServiceDeps) {
  const sessions = createSessionService(deps.db);
  const accountTokens = createAccountTokenService(deps.db);
  const verification = createEmailVerificationService({ ...deps, accountTokens });
  const accounts = createAccountService({ ...deps, sessions, verification, throttle: createLoginThrottle(deps.counters) });
  const { db, engine } = deps;
  const uploads = createUploadService(engine.paths.uploads);
  const apps = createAppService({ db, config: deps.config, engine, accounts, pubsub: deps.pubsub, githubTokens: deps.githubTokens });
  const deployments = createDeploymentService({ db, apps, engine, uploads });
  const githubWebhooks = createGitHubWebhookService({ db, config: deps.config, engine, deployments });
  return {
    audit: createAuditService(deps.db, deps.logger),
    sessions,
    githubWebhooks,
    accountTokens,
    verification,
    passwordReset: createPasswordResetService({ ...deps, accountTokens, verification }),
    accounts,
    apps,
    env: createEnvService({ db, apps, engine }),
    deployments,
    logs: createLogService({ apps, deployments, engine }),
    uploads,
    cdn: createCdnService({ db, config: deps.config, storage: deps.storage, accounts, uploads }),
    oauthClients: createOAuthClientService(deps.db, deps.tokens, deps.cache),
    oauthGrants: createOAuthGrantService(deps.db, deps.tokens),
    oauthDeviceCodes: createOAuthDeviceCodeService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
