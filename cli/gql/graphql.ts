/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type AppStatus =
  /** Its process exited; Slipway restarts it with back-off */
  | 'CRASHED'
  /** Never deployed */
  | 'CREATED'
  /** A deployment or a start is under way (a live release keeps serving meanwhile) */
  | 'DEPLOYING'
  /** The last deployment failed and there is no release to serve */
  | 'FAILED'
  /** Serving its live release */
  | 'RUNNING'
  /** No request for its sleepAfterMinutes: its web processes stopped, and the next request starts them */
  | 'SLEEPING'
  /** Stopped by its owner */
  | 'STOPPED';

export type CreateAppInput = {
  autoDeploy?: boolean | null | undefined;
  /** Default main */
  branch?: string | null | undefined;
  description?: string | null | undefined;
  /** Defaults to the slug */
  name?: string | null | undefined;
  /** owner/name or https://github.com/owner/name */
  repo?: string | null | undefined;
  /** 3–40 lowercase letters, digits or hyphens; the app's host name, unique on the platform */
  slug: string;
};

export type CreateResourceInput = {
  /** 1–30 lowercase letters, digits or underscores; default main, then db2, db3… */
  name?: string | null | undefined;
  /** postgres or sqlite (default: postgres when the platform provisions it, else sqlite) */
  type?: string | null | undefined;
};

export type CreateWebhookInput = {
  description?: string | null | undefined;
  /** Any of deploy.succeeded, deploy.failed, app.crashed, run.failed, domain.verified, quota.decided */
  events: Array<string>;
  /** https:// (or http://) URL; never a loopback, link-local or private address unless the operator allows it */
  url: string;
};

export type DeployRepoInput = {
  /** Default: the app's branch */
  branch?: string | null | undefined;
  /** A full commit sha to deploy instead of the branch's newest commit */
  commit?: string | null | undefined;
  /** owner/name or https://github.com/owner/name; default: the app's repo */
  repo?: string | null | undefined;
};

export type DeploymentSource =
  | 'github'
  | 'zip';

export type DeploymentStatus =
  /** Fetching, detecting, building, release phase */
  | 'BUILDING'
  /** Canceled by its owner */
  | 'CANCELED'
  /** Did not go live; the previous release kept serving */
  | 'FAILED'
  /** Serving now */
  | 'LIVE'
  /** Waiting for the app's previous deployment to finish */
  | 'QUEUED'
  /** The new release is starting; it takes traffic once it passes its health check */
  | 'STARTING'
  /** Replaced: a newer deployment went live after it, or came before it was built */
  | 'SUPERSEDED';

/** Unset fields take the defaults: no path (a TCP connect to PORT), every 5 s, a 2 s timeout */
export type HealthCheckInput = {
  /** 1–300, default 5 */
  intervalSeconds?: number | null | undefined;
  /** GET this path (starting with "/"): a 2xx or 3xx status passes; null: a TCP connect to PORT */
  path?: string | null | undefined;
  /** 1–60 and no more than the interval, default 2 */
  timeoutSeconds?: number | null | undefined;
};

export type HealthCheckSource =
  /** The app's own setting (App.healthcheck) */
  | 'APP'
  /** The "healthcheck" of the live release's app.json */
  | 'APP_JSON'
  /** Neither: the platform's default, a TCP connect to PORT */
  | 'DEFAULT';

export type LogKind =
  /** A deployment's build */
  | 'build'
  /** A one-off run's output */
  | 'run'
  /** The app's processes */
  | 'runtime';

export type LogStream =
  | 'stderr'
  | 'stdout'
  | 'system';

export type ProcessState =
  /** Exited, or did not start: restarted after its back-off */
  | 'CRASHED'
  /** web: answers its health check, in rotation */
  | 'HEALTHY'
  /** A process type beside web, running */
  | 'RUNNING'
  /** Being started (web: not answering its health check yet) */
  | 'STARTING'
  /** Scaled down or replaced: stopping (SIGTERM, then SIGKILL after the grace period) */
  | 'STOPPING'
  /** web: failed its health checks, out of rotation */
  | 'UNHEALTHY';

/** Any of the quota's limits, each a whole number from 1 to its maximum */
export type QuotaLimitsInput = {
  cdnBytes?: number | null | undefined;
  maxApps?: number | null | undefined;
  maxDatabases?: number | null | undefined;
  maxInstances?: number | null | undefined;
  maxUploadBytes?: number | null | undefined;
  requestsPerMinute?: number | null | undefined;
};

export type QuotaRequestInput = {
  /** The limits you want; at least one above your current one */
  limits: QuotaLimitsInput;
  /** Why you need them (an administrator reads it) */
  reason: string;
};

export type QuotaRequestStatus =
  | 'APPROVED'
  | 'DENIED'
  | 'PENDING';

export type Role =
  | 'ADMIN'
  | 'USER';

export type RollbackInput = {
  /** Default: the newest kept release before the live one */
  deployment?: string | number | null | undefined;
};

export type RunStatus =
  /** Canceled by its owner: killed with every process it started */
  | 'CANCELED'
  /** Exited with another code, or ended without one (see error) */
  | 'FAILED'
  /** Recorded, not started yet */
  | 'QUEUED'
  /** Its command runs now */
  | 'RUNNING'
  /** Exited with code 0 */
  | 'SUCCEEDED'
  /** Killed with every process it started, past its timeoutSeconds */
  | 'TIMED_OUT';

export type RunTrigger =
  /** Started through the API, the CLI or the dashboard */
  | 'api'
  /** Started by a cron job */
  | 'cron';

export type StartRunInput = {
  /** The terminal's width in characters, 1–1000 (80) */
  cols?: number | null | undefined;
  /** A shell line, run as /bin/sh -c <command> inside the app's sandbox, in its live release */
  command: string;
  /** Run on a terminal: the run waits (QUEUED) until a client attaches to Run.attachUrl over a WebSocket (60 s at most), then runs on a pty */
  interactive?: boolean | null | undefined;
  /** The terminal's height in lines, 1–1000 (24) */
  rows?: number | null | undefined;
  /** 1–86400, default 3600: past it the run is killed with every process it started (TIMED_OUT) */
  timeoutSeconds?: number | null | undefined;
};

export type UpdateAppInput = {
  autoDeploy?: boolean | null | undefined;
  branch?: string | null | undefined;
  description?: string | null | undefined;
  /** The app's own health check; null clears it (app.json's, else the default, applies) */
  healthcheck?: HealthCheckInput | null | undefined;
  instances?: number | null | undefined;
  name?: string | null | undefined;
  previews?: boolean | null | undefined;
  repo?: string | null | undefined;
  /** 1–10080 (a week); null: the app never sleeps */
  sleepAfterMinutes?: number | null | undefined;
  sleepWorkers?: boolean | null | undefined;
};

export type UserStatus =
  | 'ACTIVE'
  | 'PENDING'
  | 'SUSPENDED';

type CliError_ConflictError_Fragment = { __typename: 'ConflictError', code: string, message: string };

type CliError_InvalidRequestError_Fragment = { __typename: 'InvalidRequestError', code: string, message: string };

type CliError_NotFoundError_Fragment = { __typename: 'NotFoundError', code: string, message: string };

type CliError_QuotaExceededError_Fragment = { __typename: 'QuotaExceededError', code: string, message: string };

export type CliErrorFragment =
  | CliError_ConflictError_Fragment
  | CliError_InvalidRequestError_Fragment
  | CliError_NotFoundError_Fragment
  | CliError_QuotaExceededError_Fragment
;

export type CliWhoamiQueryVariables = Exact<{ [key: string]: never; }>;


export type CliWhoamiQuery = { viewer: { user: { id: string, name: string, email: string, role: Role, status: UserStatus }, quota: { maxApps: number, maxDatabases: number, maxInstances: number, maxUploadBytes: number, cdnBytes: number, requestsPerMinute: number, usage: { apps: number, databases: number, instances: number, cdnBytes: number } } } };

export type CliAppsQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type CliAppsQuery = { apps: Array<{ slug: string, name: string, status: AppStatus, url: string, repo: string | null, branch: string, createdAt: string, liveDeployment: { id: string, createdAt: string } | null }> };

export type CliAppInfoQueryVariables = Exact<{
  slug: string;
}>;


export type CliAppInfoQuery = { app: { slug: string, name: string, description: string, status: AppStatus, statusNote: string | null, url: string, repo: string | null, branch: string, autoDeploy: boolean, instances: number, sleepAfterMinutes: number | null, sleepWorkers: boolean, restarts: number, createdAt: string, updatedAt: string, liveDeployment: { id: string, source: DeploymentSource, builder: string | null, status: DeploymentStatus, createdAt: string, finishedAt: string | null, commit: string | null } | null, deployments: Array<{ id: string, source: DeploymentSource, builder: string | null, status: DeploymentStatus, createdAt: string, finishedAt: string | null, durationMs: number | null, error: string | null, failureOutput: Array<string> | null, commit: string | null, rollbackable: boolean, rollbackOf: string | null }>, resources: Array<{ id: string, type: string, name: string, envKey: string }>, effectiveHealthcheck: { path: string | null, intervalSeconds: number, timeoutSeconds: number, source: HealthCheckSource } } };

export type CliSetSleepMutationVariables = Exact<{
  slug: string;
  input: UpdateAppInput;
}>;


export type CliSetSleepMutation = { updateApp:
    | { slug: string, sleepAfterMinutes: number | null, sleepWorkers: boolean, status: AppStatus }
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
    | { __typename: 'QuotaExceededError', code: string, message: string }
   };

export type CliHealthCheckQueryVariables = Exact<{
  slug: string;
}>;


export type CliHealthCheckQuery = { app: { slug: string, healthcheck: { path: string | null, intervalSeconds: number, timeoutSeconds: number } | null, effectiveHealthcheck: { path: string | null, intervalSeconds: number, timeoutSeconds: number, source: HealthCheckSource } } };

export type CliSetHealthCheckMutationVariables = Exact<{
  slug: string;
  healthcheck?: HealthCheckInput | null | undefined;
}>;


export type CliSetHealthCheckMutation = { updateApp:
    | { slug: string, effectiveHealthcheck: { path: string | null, intervalSeconds: number, timeoutSeconds: number, source: HealthCheckSource } }
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
    | { __typename: 'QuotaExceededError', code: string, message: string }
   };

export type CliCreateAppMutationVariables = Exact<{
  input: CreateAppInput;
}>;


export type CliCreateAppMutation = { createApp:
    | { slug: string, name: string, url: string, status: AppStatus }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { __typename: 'QuotaExceededError', code: string, message: string }
   };

export type CliDeleteAppMutationVariables = Exact<{
  slug: string;
}>;


export type CliDeleteAppMutation = { deleteApp: boolean };

export type CliDeployUploadMutationVariables = Exact<{
  slug: string;
  upload: string | number;
}>;


export type CliDeployUploadMutation = { deployUpload:
    | { id: string, status: DeploymentStatus }
    | { __typename: 'NotFoundError', code: string, message: string }
   };

export type CliDeployRepoMutationVariables = Exact<{
  slug: string;
  input?: DeployRepoInput | null | undefined;
}>;


export type CliDeployRepoMutation = { deployRepo:
    | { id: string, status: DeploymentStatus, repo: string | null, branch: string | null }
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
   };

export type CliAppStatusSubscriptionVariables = Exact<{
  slug: string;
}>;


export type CliAppStatusSubscription = { app: { status: AppStatus, url: string, deployments: Array<{ id: string, status: DeploymentStatus, error: string | null }> } };

export type CliDeploymentStatusQueryVariables = Exact<{
  slug: string;
}>;


export type CliDeploymentStatusQuery = { app: { status: AppStatus, url: string, deployments: Array<{ id: string, status: DeploymentStatus, error: string | null }> } };

export type CliLogsQueryVariables = Exact<{
  slug: string;
  kind?: LogKind | null | undefined;
  deployment?: string | number | null | undefined;
  run?: string | number | null | undefined;
  after?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type CliLogsQuery = { appLogs: Array<{ timestamp: string, stream: LogStream, line: string, deploymentId: string | null }> };

export type CliFollowLogsSubscriptionVariables = Exact<{
  slug: string;
  kind?: LogKind | null | undefined;
  deployment?: string | number | null | undefined;
  run?: string | number | null | undefined;
  after?: string | null | undefined;
  limit?: number | null | undefined;
}>;


export type CliFollowLogsSubscription = { appLogs: Array<{ timestamp: string, stream: LogStream, line: string, deploymentId: string | null }> };

export type CliStartRunMutationVariables = Exact<{
  slug: string;
  input: StartRunInput;
}>;


export type CliStartRunMutation = { startRun:
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
    | { __typename: 'QuotaExceededError', code: string, message: string }
    | { id: string, status: RunStatus, attachUrl: string | null }
   };

export type CliRunStatusSubscriptionVariables = Exact<{
  slug: string;
  id: string | number;
}>;


export type CliRunStatusSubscription = { app: { run: { id: string, status: RunStatus, exitCode: number | null, error: string | null } | null } };

export type CliRunQueryVariables = Exact<{
  slug: string;
  id: string | number;
}>;


export type CliRunQuery = { appRun: { id: string, status: RunStatus, exitCode: number | null, error: string | null } };

export type CliRunsQueryVariables = Exact<{
  slug: string;
}>;


export type CliRunsQuery = { app: { runs: Array<{ id: string, command: string, trigger: RunTrigger, status: RunStatus, exitCode: number | null, createdAt: string, startedAt: string | null, durationMs: number | null }> } };

export type CliCancelRunMutationVariables = Exact<{
  slug: string;
  id: string | number;
}>;


export type CliCancelRunMutation = { cancelRun:
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
    | { id: string, status: RunStatus }
   };

export type CliEnvQueryVariables = Exact<{
  slug: string;
}>;


export type CliEnvQuery = { appEnv: Array<{ key: string, value: string }> };

export type CliSetEnvMutationVariables = Exact<{
  slug: string;
  vars: Record<string, string>;
}>;


export type CliSetEnvMutation = { setEnv: Array<{ key: string, value: string }> };

export type CliUnsetEnvMutationVariables = Exact<{
  slug: string;
  key: string;
}>;


export type CliUnsetEnvMutation = { unsetEnv: boolean };

export type CliStopMutationVariables = Exact<{
  slug: string;
}>;


export type CliStopMutation = { stopApp: { slug: string, status: AppStatus } };

export type CliProcessFragment = { type: string, command: string, quantity: number, instances: Array<{ index: number, name: string, state: ProcessState, startedAt: string | null, restarts: number }> };

export type CliScaleProcessesMutationVariables = Exact<{
  slug: string;
  formation: Record<string, number>;
}>;


export type CliScaleProcessesMutation = { scaleProcesses:
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { data: Array<{ type: string, command: string, quantity: number, instances: Array<{ index: number, name: string, state: ProcessState, startedAt: string | null, restarts: number }> }> }
    | { __typename: 'NotFoundError', code: string, message: string }
    | { __typename: 'QuotaExceededError', code: string, message: string }
   };

export type CliRestartMutationVariables = Exact<{
  slug: string;
}>;


export type CliRestartMutation = { restartApp:
    | { slug: string, status: AppStatus }
    | { __typename: 'ConflictError', code: string, message: string }
   };

export type CliRollbackMutationVariables = Exact<{
  slug: string;
  input?: RollbackInput | null | undefined;
}>;


export type CliRollbackMutation = { rollback:
    | { __typename: 'ConflictError', code: string, message: string }
    | { id: string, status: DeploymentStatus, rollbackOf: string | null }
    | { __typename: 'InvalidRequestError', code: string, message: string }
   };

export type CliPsQueryVariables = Exact<{
  slug: string;
}>;


export type CliPsQuery = { app: { slug: string, status: AppStatus, instances: number, restarts: number, url: string, liveDeployment: { id: string, startedAt: string | null, finishedAt: string | null, createdAt: string, commit: string | null, source: DeploymentSource, builder: string | null } | null, processes: Array<{ type: string, command: string, quantity: number, instances: Array<{ index: number, name: string, state: ProcessState, startedAt: string | null, restarts: number }> }> } };

export type CliDatabasesQueryVariables = Exact<{
  slug: string;
}>;


export type CliDatabasesQuery = { app: { slug: string, resources: Array<{ id: string, type: string, name: string, envKey: string, createdAt: string }> } };

export type CliDatabaseQueryVariables = Exact<{
  id: string | number;
}>;


export type CliDatabaseQuery = { resource: { id: string, type: string, name: string, envKey: string, createdAt: string } };

export type CliCreateDatabaseMutationVariables = Exact<{
  slug: string;
  input?: CreateResourceInput | null | undefined;
}>;


export type CliCreateDatabaseMutation = { createResource:
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
    | { __typename: 'QuotaExceededError', code: string, message: string }
    | { id: string, type: string, name: string, envKey: string, createdAt: string }
   };

export type CliDeleteDatabaseMutationVariables = Exact<{
  id: string | number;
}>;


export type CliDeleteDatabaseMutation = { deleteResource: boolean };

export type CliBackupDatabaseMutationVariables = Exact<{
  id: string | number;
}>;


export type CliBackupDatabaseMutation = { backupResource:
    | { id: string, size: number, trigger: string, createdAt: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
   };

export type CliBackupsQueryVariables = Exact<{
  id: string | number;
}>;


export type CliBackupsQuery = { resourceBackups: Array<{ id: string, size: number, trigger: string, createdAt: string }> };

export type CliRestoreBackupMutationVariables = Exact<{
  id: string | number;
  backupId: string | number;
}>;


export type CliRestoreBackupMutation = { restoreBackup:
    | { id: string, size: number, trigger: string, createdAt: string }
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
   };

export type CliRevealDatabaseUrlQueryVariables = Exact<{
  id: string | number;
}>;


export type CliRevealDatabaseUrlQuery = { revealResourceUrl: string };

export type CliQuotaRequestFragment = { id: string, reason: string, status: QuotaRequestStatus, decisionReason: string | null, createdAt: string, decidedAt: string | null, limits: { requestsPerMinute: number | null, maxApps: number | null, maxDatabases: number | null, maxInstances: number | null, cdnBytes: number | null, maxUploadBytes: number | null } };

export type CliRequestQuotaMutationVariables = Exact<{
  input: QuotaRequestInput;
}>;


export type CliRequestQuotaMutation = { requestQuota:
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { id: string, reason: string, status: QuotaRequestStatus, decisionReason: string | null, createdAt: string, decidedAt: string | null, limits: { requestsPerMinute: number | null, maxApps: number | null, maxDatabases: number | null, maxInstances: number | null, cdnBytes: number | null, maxUploadBytes: number | null } }
   };

export type CliQuotaRequestsQueryVariables = Exact<{ [key: string]: never; }>;


export type CliQuotaRequestsQuery = { quotaRequests: Array<{ id: string, reason: string, status: QuotaRequestStatus, decisionReason: string | null, createdAt: string, decidedAt: string | null, limits: { requestsPerMinute: number | null, maxApps: number | null, maxDatabases: number | null, maxInstances: number | null, cdnBytes: number | null, maxUploadBytes: number | null } }> };

export type CliFilesQueryVariables = Exact<{
  after?: string | null | undefined;
}>;


export type CliFilesQuery = { files: Array<{ id: string, name: string, size: number, contentType: string, sha256: string, url: string, createdAt: string }> };

export type CliDeleteFileMutationVariables = Exact<{
  id: string | number;
}>;


export type CliDeleteFileMutation = { deleteFile: boolean };

export type CliDomainsQueryVariables = Exact<{
  slug: string;
}>;


export type CliDomainsQuery = { appDomains: Array<{ hostname: string, verified: boolean, verifiedAt: string | null, certificate: string, challengeUrl: string | null, createdAt: string, dnsRecord: { type: string, name: string, value: string }, txtRecord: { type: string, name: string, value: string } | null }> };

export type CliAddDomainMutationVariables = Exact<{
  slug: string;
  hostname: string;
}>;


export type CliAddDomainMutation = { addDomain:
    | { __typename: 'ConflictError', code: string, message: string }
    | { hostname: string, verified: boolean, verifiedAt: string | null, certificate: string, challengeUrl: string | null, createdAt: string, dnsRecord: { type: string, name: string, value: string }, txtRecord: { type: string, name: string, value: string } | null }
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
   };

export type CliVerifyDomainMutationVariables = Exact<{
  slug: string;
  hostname: string;
}>;


export type CliVerifyDomainMutation = { verifyDomain:
    | { __typename: 'ConflictError', code: string, message: string }
    | { hostname: string, verified: boolean, verifiedAt: string | null, certificate: string, challengeUrl: string | null, createdAt: string, dnsRecord: { type: string, name: string, value: string }, txtRecord: { type: string, name: string, value: string } | null }
    | { __typename: 'NotFoundError', code: string, message: string }
   };

export type CliRemoveDomainMutationVariables = Exact<{
  slug: string;
  hostname: string;
}>;


export type CliRemoveDomainMutation = { removeDomain: boolean };

export type CliDomainFragment = { hostname: string, verified: boolean, verifiedAt: string | null, certificate: string, challengeUrl: string | null, createdAt: string, dnsRecord: { type: string, name: string, value: string }, txtRecord: { type: string, name: string, value: string } | null };

export type CliDrainsQueryVariables = Exact<{
  slug: string;
}>;


export type CliDrainsQuery = { appDrains: Array<{ id: string, url: string, sent: number, dropped: number, lastError: string | null, lastErrorAt: string | null, createdAt: string }> };

export type CliAddLogDrainMutationVariables = Exact<{
  slug: string;
  url: string;
}>;


export type CliAddLogDrainMutation = { addLogDrain:
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { id: string, url: string, sent: number, dropped: number, lastError: string | null, lastErrorAt: string | null, createdAt: string }
    | { __typename: 'NotFoundError', code: string, message: string }
    | { __typename: 'QuotaExceededError', code: string, message: string }
   };

export type CliRemoveLogDrainMutationVariables = Exact<{
  slug: string;
  id: string | number;
}>;


export type CliRemoveLogDrainMutation = { removeLogDrain: boolean };

export type CliLogDrainFragment = { id: string, url: string, sent: number, dropped: number, lastError: string | null, lastErrorAt: string | null, createdAt: string };

export type CliCronJobsQueryVariables = Exact<{
  slug: string;
}>;


export type CliCronJobsQuery = { app: { cronJobs: Array<{ id: string, command: string, schedule: string, timeoutSeconds: number, nextRunAt: string | null, lastRun: { id: string, status: RunStatus, exitCode: number | null, startedAt: string | null, createdAt: string } | null }> } };

export type CliRunCronJobMutationVariables = Exact<{
  slug: string;
  id: string | number;
}>;


export type CliRunCronJobMutation = { runCronJob:
    | { __typename: 'ConflictError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
    | { __typename: 'QuotaExceededError', code: string, message: string }
    | { id: string, status: RunStatus }
   };

export type CliAppMetricsQueryVariables = Exact<{
  slug: string;
  from?: string | null | undefined;
  step?: string | null | undefined;
}>;


export type CliAppMetricsQuery = { appMetrics:
    | { from: string, to: string, step: number, series: { cpu: Array<[string, number | null]>, memory: Array<[string, number | null]>, memoryLimit: Array<[string, number | null]>, requests: Array<[string, number | null]>, errors: Array<[string, number | null]>, latencyP50: Array<[string, number | null]>, latencyP95: Array<[string, number | null]> } }
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { __typename: 'NotFoundError', code: string, message: string }
   };

export type CliWebhookFragment = { id: string, url: string, events: Array<string>, description: string | null, createdAt: string };

export type CliWebhooksQueryVariables = Exact<{ [key: string]: never; }>;


export type CliWebhooksQuery = { webhooks: Array<{ id: string, url: string, events: Array<string>, description: string | null, createdAt: string }> };

export type CliCreateWebhookMutationVariables = Exact<{
  input: CreateWebhookInput;
}>;


export type CliCreateWebhookMutation = { createWebhook:
    | { __typename: 'InvalidRequestError', code: string, message: string }
    | { __typename: 'QuotaExceededError', code: string, message: string }
    | { secret: string | null, id: string, url: string, events: Array<string>, description: string | null, createdAt: string }
   };

export type CliDeleteWebhookMutationVariables = Exact<{
  id: string | number;
}>;


export type CliDeleteWebhookMutation = { deleteWebhook: boolean };

export type CliDeliveryFragment = { id: string, event: string, status: string, attempts: number, responseStatus: number | null, error: string | null, durationMs: number | null, createdAt: string, nextAttemptAt: string | null };

export type CliSendTestWebhookMutationVariables = Exact<{
  id: string | number;
}>;


export type CliSendTestWebhookMutation = { sendTestWebhook:
    | { __typename: 'NotFoundError', code: string, message: string }
    | { id: string, event: string, status: string, attempts: number, responseStatus: number | null, error: string | null, durationMs: number | null, createdAt: string, nextAttemptAt: string | null }
   };

export type CliWebhookDeliveriesQueryVariables = Exact<{
  id: string | number;
}>;


export type CliWebhookDeliveriesQuery = { webhookDeliveries: Array<{ id: string, event: string, status: string, attempts: number, responseStatus: number | null, error: string | null, durationMs: number | null, createdAt: string, nextAttemptAt: string | null }> };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const CliErrorFragmentDoc = new TypedDocumentString(`
    fragment CliError on Error {
  __typename
  code
  message
}
    `, {"fragmentName":"CliError"}) as unknown as TypedDocumentString<CliErrorFragment, unknown>;
export const CliProcessFragmentDoc = new TypedDocumentString(`
    fragment CliProcess on Process {
  type
  command
  quantity
  instances {
    index
    name
    state
    startedAt
    restarts
  }
}
    `, {"fragmentName":"CliProcess"}) as unknown as TypedDocumentString<CliProcessFragment, unknown>;
export const CliQuotaRequestFragmentDoc = new TypedDocumentString(`
    fragment CliQuotaRequest on QuotaRequest {
  id
  reason
  status
  decisionReason
  createdAt
  decidedAt
  limits {
    requestsPerMinute
    maxApps
    maxDatabases
    maxInstances
    cdnBytes
    maxUploadBytes
  }
}
    `, {"fragmentName":"CliQuotaRequest"}) as unknown as TypedDocumentString<CliQuotaRequestFragment, unknown>;
export const CliDomainFragmentDoc = new TypedDocumentString(`
    fragment CliDomain on Domain {
  hostname
  verified
  verifiedAt
  certificate
  challengeUrl
  createdAt
  dnsRecord {
    type
    name
    value
  }
  txtRecord {
    type
    name
    value
  }
}
    `, {"fragmentName":"CliDomain"}) as unknown as TypedDocumentString<CliDomainFragment, unknown>;
export const CliLogDrainFragmentDoc = new TypedDocumentString(`
    fragment CliLogDrain on LogDrain {
  id
  url
  sent
  dropped
  lastError
  lastErrorAt
  createdAt
}
    `, {"fragmentName":"CliLogDrain"}) as unknown as TypedDocumentString<CliLogDrainFragment, unknown>;
export const CliWebhookFragmentDoc = new TypedDocumentString(`
    fragment CliWebhook on Webhook {
  id
  url
  events
  description
  createdAt
}
    `, {"fragmentName":"CliWebhook"}) as unknown as TypedDocumentString<CliWebhookFragment, unknown>;
export const CliDeliveryFragmentDoc = new TypedDocumentString(`
    fragment CliDelivery on WebhookDelivery {
  id
  event
  status
  attempts
  responseStatus
  error
  durationMs
  createdAt
  nextAttemptAt
}
    `, {"fragmentName":"CliDelivery"}) as unknown as TypedDocumentString<CliDeliveryFragment, unknown>;
export const CliWhoamiDocument = new TypedDocumentString(`
    query CliWhoami {
  viewer {
    user {
      id
      name
      email
      role
      status
    }
    quota {
      maxApps
      maxDatabases
      maxInstances
      maxUploadBytes
      cdnBytes
      requestsPerMinute
      usage {
        apps
        databases
        instances
        cdnBytes
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliWhoamiQuery, CliWhoamiQueryVariables>;
export const CliAppsDocument = new TypedDocumentString(`
    query CliApps($after: String) {
  apps(first: 100, after: $after) {
    slug
    name
    status
    url
    repo
    branch
    createdAt
    liveDeployment {
      id
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<CliAppsQuery, CliAppsQueryVariables>;
export const CliAppInfoDocument = new TypedDocumentString(`
    query CliAppInfo($slug: String!) {
  app(slug: $slug) {
    slug
    name
    description
    status
    statusNote
    url
    repo
    branch
    autoDeploy
    instances
    sleepAfterMinutes
    sleepWorkers
    restarts
    createdAt
    updatedAt
    liveDeployment {
      id
      source
      builder
      status
      createdAt
      finishedAt
      commit
    }
    deployments(limit: 10) {
      id
      source
      builder
      status
      createdAt
      finishedAt
      durationMs
      error
      failureOutput
      commit
      rollbackable
      rollbackOf
    }
    resources {
      id
      type
      name
      envKey
    }
    effectiveHealthcheck {
      path
      intervalSeconds
      timeoutSeconds
      source
    }
  }
}
    `) as unknown as TypedDocumentString<CliAppInfoQuery, CliAppInfoQueryVariables>;
export const CliSetSleepDocument = new TypedDocumentString(`
    mutation CliSetSleep($slug: String!, $input: UpdateAppInput!) {
  updateApp(slug: $slug, input: $input) {
    ... on App {
      slug
      sleepAfterMinutes
      sleepWorkers
      status
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliSetSleepMutation, CliSetSleepMutationVariables>;
export const CliHealthCheckDocument = new TypedDocumentString(`
    query CliHealthCheck($slug: String!) {
  app(slug: $slug) {
    slug
    healthcheck {
      path
      intervalSeconds
      timeoutSeconds
    }
    effectiveHealthcheck {
      path
      intervalSeconds
      timeoutSeconds
      source
    }
  }
}
    `) as unknown as TypedDocumentString<CliHealthCheckQuery, CliHealthCheckQueryVariables>;
export const CliSetHealthCheckDocument = new TypedDocumentString(`
    mutation CliSetHealthCheck($slug: String!, $healthcheck: HealthCheckInput) {
  updateApp(slug: $slug, input: {healthcheck: $healthcheck}) {
    ... on App {
      slug
      effectiveHealthcheck {
        path
        intervalSeconds
        timeoutSeconds
        source
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliSetHealthCheckMutation, CliSetHealthCheckMutationVariables>;
export const CliCreateAppDocument = new TypedDocumentString(`
    mutation CliCreateApp($input: CreateAppInput!) {
  createApp(input: $input) {
    ... on App {
      slug
      name
      url
      status
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliCreateAppMutation, CliCreateAppMutationVariables>;
export const CliDeleteAppDocument = new TypedDocumentString(`
    mutation CliDeleteApp($slug: String!) {
  deleteApp(slug: $slug)
}
    `) as unknown as TypedDocumentString<CliDeleteAppMutation, CliDeleteAppMutationVariables>;
export const CliDeployUploadDocument = new TypedDocumentString(`
    mutation CliDeployUpload($slug: String!, $upload: ID!) {
  deployUpload(slug: $slug, upload: $upload) {
    ... on Deployment {
      id
      status
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliDeployUploadMutation, CliDeployUploadMutationVariables>;
export const CliDeployRepoDocument = new TypedDocumentString(`
    mutation CliDeployRepo($slug: String!, $input: DeployRepoInput) {
  deployRepo(slug: $slug, input: $input) {
    ... on Deployment {
      id
      status
      repo
      branch
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliDeployRepoMutation, CliDeployRepoMutationVariables>;
export const CliAppStatusDocument = new TypedDocumentString(`
    subscription CliAppStatus($slug: String!) {
  app(slug: $slug) {
    status
    url
    deployments(limit: 10) {
      id
      status
      error
    }
  }
}
    `) as unknown as TypedDocumentString<CliAppStatusSubscription, CliAppStatusSubscriptionVariables>;
export const CliDeploymentStatusDocument = new TypedDocumentString(`
    query CliDeploymentStatus($slug: String!) {
  app(slug: $slug) {
    status
    url
    deployments(limit: 20) {
      id
      status
      error
    }
  }
}
    `) as unknown as TypedDocumentString<CliDeploymentStatusQuery, CliDeploymentStatusQueryVariables>;
export const CliLogsDocument = new TypedDocumentString(`
    query CliLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {
  appLogs(
    slug: $slug
    kind: $kind
    deployment: $deployment
    run: $run
    after: $after
    limit: $limit
  ) {
    timestamp
    stream
    line
    deploymentId
  }
}
    `) as unknown as TypedDocumentString<CliLogsQuery, CliLogsQueryVariables>;
export const CliFollowLogsDocument = new TypedDocumentString(`
    subscription CliFollowLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {
  appLogs(
    slug: $slug
    kind: $kind
    deployment: $deployment
    run: $run
    after: $after
    limit: $limit
  ) {
    timestamp
    stream
    line
    deploymentId
  }
}
    `) as unknown as TypedDocumentString<CliFollowLogsSubscription, CliFollowLogsSubscriptionVariables>;
export const CliStartRunDocument = new TypedDocumentString(`
    mutation CliStartRun($slug: String!, $input: StartRunInput!) {
  startRun(slug: $slug, input: $input) {
    ... on Run {
      id
      status
      attachUrl
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliStartRunMutation, CliStartRunMutationVariables>;
export const CliRunStatusDocument = new TypedDocumentString(`
    subscription CliRunStatus($slug: String!, $id: ID!) {
  app(slug: $slug) {
    run(id: $id) {
      id
      status
      exitCode
      error
    }
  }
}
    `) as unknown as TypedDocumentString<CliRunStatusSubscription, CliRunStatusSubscriptionVariables>;
export const CliRunDocument = new TypedDocumentString(`
    query CliRun($slug: String!, $id: ID!) {
  appRun(slug: $slug, id: $id) {
    id
    status
    exitCode
    error
  }
}
    `) as unknown as TypedDocumentString<CliRunQuery, CliRunQueryVariables>;
export const CliRunsDocument = new TypedDocumentString(`
    query CliRuns($slug: String!) {
  app(slug: $slug) {
    runs(first: 20) {
      id
      command
      trigger
      status
      exitCode
      createdAt
      startedAt
      durationMs
    }
  }
}
    `) as unknown as TypedDocumentString<CliRunsQuery, CliRunsQueryVariables>;
export const CliCancelRunDocument = new TypedDocumentString(`
    mutation CliCancelRun($slug: String!, $id: ID!) {
  cancelRun(slug: $slug, id: $id) {
    ... on Run {
      id
      status
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliCancelRunMutation, CliCancelRunMutationVariables>;
export const CliEnvDocument = new TypedDocumentString(`
    query CliEnv($slug: String!) {
  appEnv(slug: $slug) {
    key
    value
  }
}
    `) as unknown as TypedDocumentString<CliEnvQuery, CliEnvQueryVariables>;
export const CliSetEnvDocument = new TypedDocumentString(`
    mutation CliSetEnv($slug: String!, $vars: EnvVars!) {
  setEnv(slug: $slug, vars: $vars) {
    key
    value
  }
}
    `) as unknown as TypedDocumentString<CliSetEnvMutation, CliSetEnvMutationVariables>;
export const CliUnsetEnvDocument = new TypedDocumentString(`
    mutation CliUnsetEnv($slug: String!, $key: String!) {
  unsetEnv(slug: $slug, key: $key)
}
    `) as unknown as TypedDocumentString<CliUnsetEnvMutation, CliUnsetEnvMutationVariables>;
export const CliStopDocument = new TypedDocumentString(`
    mutation CliStop($slug: String!) {
  stopApp(slug: $slug) {
    slug
    status
  }
}
    `) as unknown as TypedDocumentString<CliStopMutation, CliStopMutationVariables>;
export const CliScaleProcessesDocument = new TypedDocumentString(`
    mutation CliScaleProcesses($slug: String!, $formation: Formation!) {
  scaleProcesses(slug: $slug, formation: $formation) {
    ... on MutationScaleProcessesSuccess {
      data {
        ...CliProcess
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}
fragment CliProcess on Process {
  type
  command
  quantity
  instances {
    index
    name
    state
    startedAt
    restarts
  }
}`) as unknown as TypedDocumentString<CliScaleProcessesMutation, CliScaleProcessesMutationVariables>;
export const CliRestartDocument = new TypedDocumentString(`
    mutation CliRestart($slug: String!) {
  restartApp(slug: $slug) {
    ... on App {
      slug
      status
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliRestartMutation, CliRestartMutationVariables>;
export const CliRollbackDocument = new TypedDocumentString(`
    mutation CliRollback($slug: String!, $input: RollbackInput) {
  rollback(slug: $slug, input: $input) {
    ... on Deployment {
      id
      status
      rollbackOf
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliRollbackMutation, CliRollbackMutationVariables>;
export const CliPsDocument = new TypedDocumentString(`
    query CliPs($slug: String!) {
  app(slug: $slug) {
    slug
    status
    instances
    restarts
    url
    liveDeployment {
      id
      startedAt
      finishedAt
      createdAt
      commit
      source
      builder
    }
    processes {
      ...CliProcess
    }
  }
}
    fragment CliProcess on Process {
  type
  command
  quantity
  instances {
    index
    name
    state
    startedAt
    restarts
  }
}`) as unknown as TypedDocumentString<CliPsQuery, CliPsQueryVariables>;
export const CliDatabasesDocument = new TypedDocumentString(`
    query CliDatabases($slug: String!) {
  app(slug: $slug) {
    slug
    resources {
      id
      type
      name
      envKey
      createdAt
    }
  }
}
    `) as unknown as TypedDocumentString<CliDatabasesQuery, CliDatabasesQueryVariables>;
export const CliDatabaseDocument = new TypedDocumentString(`
    query CliDatabase($id: ID!) {
  resource(id: $id) {
    id
    type
    name
    envKey
    createdAt
  }
}
    `) as unknown as TypedDocumentString<CliDatabaseQuery, CliDatabaseQueryVariables>;
export const CliCreateDatabaseDocument = new TypedDocumentString(`
    mutation CliCreateDatabase($slug: String!, $input: CreateResourceInput) {
  createResource(slug: $slug, input: $input) {
    ... on Resource {
      id
      type
      name
      envKey
      createdAt
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliCreateDatabaseMutation, CliCreateDatabaseMutationVariables>;
export const CliDeleteDatabaseDocument = new TypedDocumentString(`
    mutation CliDeleteDatabase($id: ID!) {
  deleteResource(id: $id)
}
    `) as unknown as TypedDocumentString<CliDeleteDatabaseMutation, CliDeleteDatabaseMutationVariables>;
export const CliBackupDatabaseDocument = new TypedDocumentString(`
    mutation CliBackupDatabase($id: ID!) {
  backupResource(id: $id) {
    ... on Backup {
      id
      size
      trigger
      createdAt
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliBackupDatabaseMutation, CliBackupDatabaseMutationVariables>;
export const CliBackupsDocument = new TypedDocumentString(`
    query CliBackups($id: ID!) {
  resourceBackups(id: $id) {
    id
    size
    trigger
    createdAt
  }
}
    `) as unknown as TypedDocumentString<CliBackupsQuery, CliBackupsQueryVariables>;
export const CliRestoreBackupDocument = new TypedDocumentString(`
    mutation CliRestoreBackup($id: ID!, $backupId: ID!) {
  restoreBackup(id: $id, backupId: $backupId) {
    ... on Backup {
      id
      size
      trigger
      createdAt
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliRestoreBackupMutation, CliRestoreBackupMutationVariables>;
export const CliRevealDatabaseUrlDocument = new TypedDocumentString(`
    query CliRevealDatabaseUrl($id: ID!) {
  revealResourceUrl(id: $id)
}
    `) as unknown as TypedDocumentString<CliRevealDatabaseUrlQuery, CliRevealDatabaseUrlQueryVariables>;
export const CliRequestQuotaDocument = new TypedDocumentString(`
    mutation CliRequestQuota($input: QuotaRequestInput!) {
  requestQuota(input: $input) {
    ... on QuotaRequest {
      ...CliQuotaRequest
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}
fragment CliQuotaRequest on QuotaRequest {
  id
  reason
  status
  decisionReason
  createdAt
  decidedAt
  limits {
    requestsPerMinute
    maxApps
    maxDatabases
    maxInstances
    cdnBytes
    maxUploadBytes
  }
}`) as unknown as TypedDocumentString<CliRequestQuotaMutation, CliRequestQuotaMutationVariables>;
export const CliQuotaRequestsDocument = new TypedDocumentString(`
    query CliQuotaRequests {
  quotaRequests(first: 10) {
    ...CliQuotaRequest
  }
}
    fragment CliQuotaRequest on QuotaRequest {
  id
  reason
  status
  decisionReason
  createdAt
  decidedAt
  limits {
    requestsPerMinute
    maxApps
    maxDatabases
    maxInstances
    cdnBytes
    maxUploadBytes
  }
}`) as unknown as TypedDocumentString<CliQuotaRequestsQuery, CliQuotaRequestsQueryVariables>;
export const CliFilesDocument = new TypedDocumentString(`
    query CliFiles($after: String) {
  files(first: 100, after: $after) {
    id
    name
    size
    contentType
    sha256
    url
    createdAt
  }
}
    `) as unknown as TypedDocumentString<CliFilesQuery, CliFilesQueryVariables>;
export const CliDeleteFileDocument = new TypedDocumentString(`
    mutation CliDeleteFile($id: ID!) {
  deleteFile(id: $id)
}
    `) as unknown as TypedDocumentString<CliDeleteFileMutation, CliDeleteFileMutationVariables>;
export const CliDomainsDocument = new TypedDocumentString(`
    query CliDomains($slug: String!) {
  appDomains(slug: $slug) {
    ...CliDomain
  }
}
    fragment CliDomain on Domain {
  hostname
  verified
  verifiedAt
  certificate
  challengeUrl
  createdAt
  dnsRecord {
    type
    name
    value
  }
  txtRecord {
    type
    name
    value
  }
}`) as unknown as TypedDocumentString<CliDomainsQuery, CliDomainsQueryVariables>;
export const CliAddDomainDocument = new TypedDocumentString(`
    mutation CliAddDomain($slug: String!, $hostname: String!) {
  addDomain(slug: $slug, input: {hostname: $hostname}) {
    ...CliDomain
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}
fragment CliDomain on Domain {
  hostname
  verified
  verifiedAt
  certificate
  challengeUrl
  createdAt
  dnsRecord {
    type
    name
    value
  }
  txtRecord {
    type
    name
    value
  }
}`) as unknown as TypedDocumentString<CliAddDomainMutation, CliAddDomainMutationVariables>;
export const CliVerifyDomainDocument = new TypedDocumentString(`
    mutation CliVerifyDomain($slug: String!, $hostname: String!) {
  verifyDomain(slug: $slug, hostname: $hostname) {
    ...CliDomain
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}
fragment CliDomain on Domain {
  hostname
  verified
  verifiedAt
  certificate
  challengeUrl
  createdAt
  dnsRecord {
    type
    name
    value
  }
  txtRecord {
    type
    name
    value
  }
}`) as unknown as TypedDocumentString<CliVerifyDomainMutation, CliVerifyDomainMutationVariables>;
export const CliRemoveDomainDocument = new TypedDocumentString(`
    mutation CliRemoveDomain($slug: String!, $hostname: String!) {
  removeDomain(slug: $slug, hostname: $hostname)
}
    `) as unknown as TypedDocumentString<CliRemoveDomainMutation, CliRemoveDomainMutationVariables>;
export const CliDrainsDocument = new TypedDocumentString(`
    query CliDrains($slug: String!) {
  appDrains(slug: $slug) {
    ...CliLogDrain
  }
}
    fragment CliLogDrain on LogDrain {
  id
  url
  sent
  dropped
  lastError
  lastErrorAt
  createdAt
}`) as unknown as TypedDocumentString<CliDrainsQuery, CliDrainsQueryVariables>;
export const CliAddLogDrainDocument = new TypedDocumentString(`
    mutation CliAddLogDrain($slug: String!, $url: String!) {
  addLogDrain(slug: $slug, input: {url: $url}) {
    ...CliLogDrain
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}
fragment CliLogDrain on LogDrain {
  id
  url
  sent
  dropped
  lastError
  lastErrorAt
  createdAt
}`) as unknown as TypedDocumentString<CliAddLogDrainMutation, CliAddLogDrainMutationVariables>;
export const CliRemoveLogDrainDocument = new TypedDocumentString(`
    mutation CliRemoveLogDrain($slug: String!, $id: ID!) {
  removeLogDrain(slug: $slug, id: $id)
}
    `) as unknown as TypedDocumentString<CliRemoveLogDrainMutation, CliRemoveLogDrainMutationVariables>;
export const CliCronJobsDocument = new TypedDocumentString(`
    query CliCronJobs($slug: String!) {
  app(slug: $slug) {
    cronJobs {
      id
      command
      schedule
      timeoutSeconds
      nextRunAt
      lastRun {
        id
        status
        exitCode
        startedAt
        createdAt
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliCronJobsQuery, CliCronJobsQueryVariables>;
export const CliRunCronJobDocument = new TypedDocumentString(`
    mutation CliRunCronJob($slug: String!, $id: ID!) {
  runCronJob(slug: $slug, id: $id) {
    ... on Run {
      id
      status
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliRunCronJobMutation, CliRunCronJobMutationVariables>;
export const CliAppMetricsDocument = new TypedDocumentString(`
    query CliAppMetrics($slug: String!, $from: String, $step: String) {
  appMetrics(slug: $slug, from: $from, step: $step) {
    ... on AppMetrics {
      from
      to
      step
      series {
        cpu
        memory
        memoryLimit
        requests
        errors
        latencyP50
        latencyP95
      }
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}`) as unknown as TypedDocumentString<CliAppMetricsQuery, CliAppMetricsQueryVariables>;
export const CliWebhooksDocument = new TypedDocumentString(`
    query CliWebhooks {
  webhooks {
    ...CliWebhook
  }
}
    fragment CliWebhook on Webhook {
  id
  url
  events
  description
  createdAt
}`) as unknown as TypedDocumentString<CliWebhooksQuery, CliWebhooksQueryVariables>;
export const CliCreateWebhookDocument = new TypedDocumentString(`
    mutation CliCreateWebhook($input: CreateWebhookInput!) {
  createWebhook(input: $input) {
    ... on Webhook {
      ...CliWebhook
      secret
    }
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}
fragment CliWebhook on Webhook {
  id
  url
  events
  description
  createdAt
}`) as unknown as TypedDocumentString<CliCreateWebhookMutation, CliCreateWebhookMutationVariables>;
export const CliDeleteWebhookDocument = new TypedDocumentString(`
    mutation CliDeleteWebhook($id: ID!) {
  deleteWebhook(id: $id)
}
    `) as unknown as TypedDocumentString<CliDeleteWebhookMutation, CliDeleteWebhookMutationVariables>;
export const CliSendTestWebhookDocument = new TypedDocumentString(`
    mutation CliSendTestWebhook($id: ID!) {
  sendTestWebhook(id: $id) {
    ...CliDelivery
    ...CliError
  }
}
    fragment CliError on Error {
  __typename
  code
  message
}
fragment CliDelivery on WebhookDelivery {
  id
  event
  status
  attempts
  responseStatus
  error
  durationMs
  createdAt
  nextAttemptAt
}`) as unknown as TypedDocumentString<CliSendTestWebhookMutation, CliSendTestWebhookMutationVariables>;
export const CliWebhookDeliveriesDocument = new TypedDocumentString(`
    query CliWebhookDeliveries($id: ID!) {
  webhookDeliveries(id: $id) {
    ...CliDelivery
  }
}
    fragment CliDelivery on WebhookDelivery {
  id
  event
  status
  attempts
  responseStatus
  error
  durationMs
  createdAt
  nextAttemptAt
}`) as unknown as TypedDocumentString<CliWebhookDeliveriesQuery, CliWebhookDeliveriesQueryVariables>;