// Every entry point (GraphQL resolvers, REST through GraphQL, OAuth, workers) uses these services.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { OAuthTokenStore } from "../db/oauth-token-store.ts";
import type { MailLogger, Mailer } from "../platform/mail/index.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { CounterStore } from "../platform/ratelimit/index.ts";
import type { ReadCache } from "../platform/read-cache.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import { createAccountService } from "./accounts.ts";
import type { AppReads } from "../db/app-reads.ts";
import { createAppService } from "./apps.ts";
import { createDeploymentService } from "./deployments.ts";
import { createDomainService } from "./domains.ts";
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
import { createAccountDeletionService } from "./account-deletion.ts";
import { createAccountSettingsService } from "./account-settings.ts";
import type { ObjectStorage } from "../platform/storage/index.ts";
import type { GitHubTokenStore } from "./github-tokens.ts";
import { createGitHubWebhookService } from "./github-webhooks.ts";
import { createQuotaRequestService } from "./quota-requests.ts";
import { createAdminUserService } from "./admin-users.ts";
import { createAdminStatsService } from "./admin-stats.ts";
import { createClusterService } from "./cluster.ts";
import type { Provisioners } from "../platform/databases/index.ts";
import { createBackupService } from "./backups.ts";
import { createResourceService } from "./resources.ts";
import { createRunService } from "./runs.ts";
import { createProcessService } from "./processes.ts";
import { createCronService } from "./cron.ts";
import { createMetricsService } from "./metrics.ts";
import type { OneOffRuns } from "../hosting/runs/runner.ts";
import { createSealer } from "./sealed.ts";
import { createWebhookService } from "./webhooks.ts";
import { createDrainService } from "./drains.ts";
import type { Deliveries } from "../notifications/deliveries.ts";
import { createNotifier } from "../notifications/notifier.ts";
import type { OutboundGuard } from "../platform/outbound.ts";

export interface ServiceDeps {
  /** Whether an instance leads the cluster now (always, alone): apps' statuses are the leader's observations. */
  someoneLeads(): boolean;
  db: Db;
  config: Config;
  counters: CounterStore;
  pubsub: PubSub;
  cache: ReadCache;
  mailer: Mailer;
  logger: MailLogger;
  /** Prepared SQL for the token endpoint's hot path (db/oauth-token-store.ts). */
  tokens: OAuthTokenStore;
  /** Prepared SQL for the app list (db/app-reads.ts). */
  appReads: AppReads;
  engine: ClusterEngine;
  runs: OneOffRuns;
  githubTokens: GitHubTokenStore;
  /** CDN files and database backups. */
  storage: ObjectStorage;
  /** App databases: SQLite, and PostgreSQL when POSTGRES_PROVISION_URL is set. */
  databases: Provisioners;
  /** The time cron jobs' next runs are counted from: the scheduler's clock. */
  now?: () => Date;
  /** A custom domain's certificate at the edge (EDGE=caddy, once the server listens); "none" without one. */
  certificateOf(hostname: string, verified: boolean): string;
  /** Webhook deliveries (the leader retries them). */
  deliveries: Deliveries;
  /** What the platform's own outbound connections may reach (OUTBOUND_ALLOWED_HOSTS). */
  outbound: OutboundGuard;
}

export function createServices(deps: ServiceDeps) {
  const audit = createAuditService(deps.db, deps.logger);
  const sessions = createSessionService(deps.db, audit);
  const accountTokens = createAccountTokenService(deps.db);
  const verification = createEmailVerificationService({ ...deps, accountTokens });
  const throttle = createLoginThrottle(deps.counters);
  const accounts = createAccountService({ ...deps, sessions, verification, throttle, audit });
  const { db, engine } = deps;
  const uploads = createUploadService(engine.paths.uploads);
  const apps = createAppService({ db, reads: deps.appReads, config: deps.config, engine, someoneLeads: deps.someoneLeads, accounts, pubsub: deps.pubsub, githubTokens: deps.githubTokens, audit });
  const resources = createResourceService({ db, engine, apps, accounts, provisioners: deps.databases, sealer: createSealer(deps.config.sharedDataDir, "resources"), audit });
  apps.onRemove((app) => resources.removeAllOf(app));
  const runs = createRunService({ db, apps, accounts, runner: deps.runs, terminals: !!engine.terminals });
  apps.onRemove((app) => runs.cancelAll(app.id));
  const backups = createBackupService({ db, config: deps.config, engine, storage: deps.storage, resources, audit, logger: deps.logger, counters: deps.counters });
  const cdn = createCdnService({ db, config: deps.config, storage: deps.storage, accounts, uploads, logger: deps.logger });
  const deployments = createDeploymentService({ db, apps, engine, uploads });
  const notifications = createNotifier({ db, config: deps.config, deliveries: deps.deliveries, mailer: deps.mailer, logger: deps.logger, appUrl: apps.url, clock: { now: () => (deps.now?.() ?? new Date()).getTime() } });
  const githubWebhooks = createGitHubWebhookService({ db, config: deps.config, engine, deployments, audit, removeDatabases: (app) => resources.removeAllOf(app) });
  return {
    audit,
    notifications,
    webhooks: createWebhookService({ db, guard: deps.outbound, deliveries: deps.deliveries, audit }),
    resources,
    backups,
    quotaRequests: createQuotaRequestService({ db, accounts, audit, notifications, defaultQuota: deps.config.defaultQuota }),
    adminUsers: createAdminUserService({ db, engine, accounts, audit, defaultQuota: deps.config.defaultQuota }),
    adminStats: createAdminStatsService(db),
    // Real time, as the lease is renewed on it (tests drive cron on a clock of their own).
    cluster: createClusterService({ db, leaseMs: deps.config.clusterLeaseMs, now: () => new Date() }),
    sessions,
    accountSettings: createAccountSettingsService({ db, accounts, sessions, throttle, verification, audit, mailer: deps.mailer, logger: deps.logger }),
    accountDeletion: createAccountDeletionService({ db, apps, accounts, cdn, audit }),
    githubWebhooks,
    accountTokens,
    verification,
    passwordReset: createPasswordResetService({ ...deps, accountTokens, verification }),
    accounts,
    apps,
    env: createEnvService({ db, apps, engine, audit }),
    drains: createDrainService({ db, apps, guard: deps.outbound, pubsub: deps.pubsub, audit }),
    domains: createDomainService({ db, config: deps.config, engine, apps, pubsub: deps.pubsub, audit, notifications, certificateOf: deps.certificateOf }),
    deployments,
    runs,
    processes: createProcessService({ db, apps, accounts, engine }),
    cron: createCronService({ db, apps, runs, now: deps.now }),
    metrics: createMetricsService({ db, apps, pubsub: deps.pubsub, retentionDays: deps.config.metrics.retentionDays, now: deps.now ?? (() => new Date()) }),
    logs: createLogService({ apps, deployments, runs, engine }),
    uploads,
    cdn,
    oauthClients: createOAuthClientService(deps.db, deps.tokens, deps.cache, audit),
    oauthGrants: createOAuthGrantService(deps.db, deps.tokens, audit),
    oauthDeviceCodes: createOAuthDeviceCodeService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
