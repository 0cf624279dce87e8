// Every GraphQL operation the CLI sends; `npm run codegen` types them into cli/gql.
import { graphql } from "./gql/index.ts";

export const ErrorFieldsFragment = graphql(`
  fragment CliError on Error {
    __typename
    code
    message
  }
`);

export const WhoamiQuery = graphql(`
  query CliWhoami {
    viewer {
      user { id name email role status }
      quota { maxApps maxDatabases maxInstances maxUploadBytes cdnBytes requestsPerMinute usage { apps databases instances cdnBytes } }
    }
  }
`);

export const AppsQuery = graphql(`
  query CliApps($after: String) {
    apps(first: 100, after: $after) { slug name status url repo branch createdAt liveDeployment { id createdAt } }
  }
`);

export const AppInfoQuery = graphql(`
  query CliAppInfo($slug: String!) {
    app(slug: $slug) {
      slug name description status statusNote url repo branch autoDeploy instances sleepAfterMinutes sleepWorkers restarts createdAt updatedAt
      liveDeployment { id source builder status createdAt finishedAt commit }
      deployments(limit: 10) { id source builder status createdAt finishedAt durationMs error failureOutput commit rollbackable rollbackOf }
      resources { id type name envKey }
      effectiveHealthcheck { path intervalSeconds timeoutSeconds source }
    }
  }
`);

export const SetSleepMutation = graphql(`
  mutation CliSetSleep($slug: String!, $input: UpdateAppInput!) {
    updateApp(slug: $slug, input: $input) {
      ... on App { slug sleepAfterMinutes sleepWorkers status }
      ...CliError
    }
  }
`);

export const HealthCheckQuery = graphql(`
  query CliHealthCheck($slug: String!) {
    app(slug: $slug) {
      slug
      healthcheck { path intervalSeconds timeoutSeconds }
      effectiveHealthcheck { path intervalSeconds timeoutSeconds source }
    }
  }
`);

export const SetHealthCheckMutation = graphql(`
  mutation CliSetHealthCheck($slug: String!, $healthcheck: HealthCheckInput) {
    updateApp(slug: $slug, input: { healthcheck: $healthcheck }) {
      ... on App { slug effectiveHealthcheck { path intervalSeconds timeoutSeconds source } }
      ...CliError
    }
  }
`);

export const CreateAppMutation = graphql(`
  mutation CliCreateApp($input: CreateAppInput!) {
    createApp(input: $input) {
      ... on App { slug name url status }
      ...CliError
    }
  }
`);

export const DeleteAppMutation = graphql(`
  mutation CliDeleteApp($slug: String!) {
    deleteApp(slug: $slug)
  }
`);

export const DeployUploadMutation = graphql(`
  mutation CliDeployUpload($slug: String!, $upload: ID!) {
    deployUpload(slug: $slug, upload: $upload) {
      ... on Deployment { id status }
      ...CliError
    }
  }
`);

export const DeployRepoMutation = graphql(`
  mutation CliDeployRepo($slug: String!, $input: DeployRepoInput) {
    deployRepo(slug: $slug, input: $input) {
      ... on Deployment { id status repo branch }
      ...CliError
    }
  }
`);

export const AppStatusSubscription = graphql(`
  subscription CliAppStatus($slug: String!) {
    app(slug: $slug) { status url deployments(limit: 10) { id status error } }
  }
`);

export const DeploymentStatusQuery = graphql(`
  query CliDeploymentStatus($slug: String!) {
    app(slug: $slug) { status url deployments(limit: 20) { id status error } }
  }
`);

export const LogsQuery = graphql(`
  query CliLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {
    appLogs(slug: $slug, kind: $kind, deployment: $deployment, run: $run, after: $after, limit: $limit) { timestamp stream line deploymentId }
  }
`);

export const LogsSubscription = graphql(`
  subscription CliFollowLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {
    appLogs(slug: $slug, kind: $kind, deployment: $deployment, run: $run, after: $after, limit: $limit) { timestamp stream line deploymentId }
  }
`);

export const StartRunMutation = graphql(`
  mutation CliStartRun($slug: String!, $input: StartRunInput!) {
    startRun(slug: $slug, input: $input) {
      ... on Run { id status attachUrl }
      ...CliError
    }
  }
`);

export const RunStatusSubscription = graphql(`
  subscription CliRunStatus($slug: String!, $id: ID!) {
    app(slug: $slug) { run(id: $id) { id status exitCode error } }
  }
`);

export const RunStatusQuery = graphql(`
  query CliRun($slug: String!, $id: ID!) {
    appRun(slug: $slug, id: $id) { id status exitCode error }
  }
`);

export const RunsQuery = graphql(`
  query CliRuns($slug: String!) {
    app(slug: $slug) { runs(first: 20) { id command trigger status exitCode createdAt startedAt durationMs } }
  }
`);

export const CancelRunMutation = graphql(`
  mutation CliCancelRun($slug: String!, $id: ID!) {
    cancelRun(slug: $slug, id: $id) {
      ... on Run { id status }
      ...CliError
    }
  }
`);

export const EnvQuery = graphql(`
  query CliEnv($slug: String!) {
    appEnv(slug: $slug) { key value }
  }
`);

export const SetEnvMutation = graphql(`
  mutation CliSetEnv($slug: String!, $vars: EnvVars!) {
    setEnv(slug: $slug, vars: $vars) { key value }
  }
`);

export const UnsetEnvMutation = graphql(`
  mutation CliUnsetEnv($slug: String!, $key: String!) {
    unsetEnv(slug: $slug, key: $key)
  }
`);

export const StopMutation = graphql(`
  mutation CliStop($slug: String!) {
    stopApp(slug: $slug) { slug status }
  }
`);

export const ProcessFieldsFragment = graphql(`
  fragment CliProcess on Process {
    type command quantity
    instances { index name state startedAt restarts }
  }
`);

export const ScaleProcessesMutation = graphql(`
  mutation CliScaleProcesses($slug: String!, $formation: Formation!) {
    scaleProcesses(slug: $slug, formation: $formation) {
      ... on MutationScaleProcessesSuccess { data { ...CliProcess } }
      ...CliError
    }
  }
`);

export const RestartMutation = graphql(`
  mutation CliRestart($slug: String!) {
    restartApp(slug: $slug) {
      ... on App { slug status }
      ...CliError
    }
  }
`);

export const RollbackMutation = graphql(`
  mutation CliRollback($slug: String!, $input: RollbackInput) {
    rollback(slug: $slug, input: $input) {
      ... on Deployment { id status rollbackOf }
      ...CliError
    }
  }
`);

export const PsQuery = graphql(`
  query CliPs($slug: String!) {
    app(slug: $slug) {
      slug status instances restarts url
      liveDeployment { id startedAt finishedAt createdAt commit source builder }
      processes { ...CliProcess }
    }
  }
`);

export const DatabasesQuery = graphql(`
  query CliDatabases($slug: String!) {
    app(slug: $slug) { slug resources { id type name envKey createdAt } }
  }
`);

export const DatabaseQuery = graphql(`
  query CliDatabase($id: ID!) {
    resource(id: $id) { id type name envKey createdAt }
  }
`);

export const CreateDatabaseMutation = graphql(`
  mutation CliCreateDatabase($slug: String!, $input: CreateResourceInput) {
    createResource(slug: $slug, input: $input) {
      ... on Resource { id type name envKey createdAt }
      ...CliError
    }
  }
`);

export const DeleteDatabaseMutation = graphql(`
  mutation CliDeleteDatabase($id: ID!) {
    deleteResource(id: $id)
  }
`);

export const BackupDatabaseMutation = graphql(`
  mutation CliBackupDatabase($id: ID!) {
    backupResource(id: $id) {
      ... on Backup { id size trigger createdAt }
      ...CliError
    }
  }
`);

export const BackupsQuery = graphql(`
  query CliBackups($id: ID!) {
    resourceBackups(id: $id) { id size trigger createdAt }
  }
`);

export const RestoreBackupMutation = graphql(`
  mutation CliRestoreBackup($id: ID!, $backupId: ID!) {
    restoreBackup(id: $id, backupId: $backupId) {
      ... on Backup { id size trigger createdAt }
      ...CliError
    }
  }
`);

export const RevealDatabaseUrlQuery = graphql(`
  query CliRevealDatabaseUrl($id: ID!) {
    revealResourceUrl(id: $id)
  }
`);

export const QuotaRequestFieldsFragment = graphql(`
  fragment CliQuotaRequest on QuotaRequest {
    id reason status decisionReason createdAt decidedAt
    limits { requestsPerMinute maxApps maxDatabases maxInstances cdnBytes maxUploadBytes }
  }
`);

export const RequestQuotaMutation = graphql(`
  mutation CliRequestQuota($input: QuotaRequestInput!) {
    requestQuota(input: $input) {
      ... on QuotaRequest { ...CliQuotaRequest }
      ...CliError
    }
  }
`);

export const QuotaRequestsQuery = graphql(`
  query CliQuotaRequests {
    quotaRequests(first: 10) { ...CliQuotaRequest }
  }
`);

export const FilesQuery = graphql(`
  query CliFiles($after: String) {
    files(first: 100, after: $after) { id name size contentType sha256 url createdAt }
  }
`);

export const DeleteFileMutation = graphql(`
  mutation CliDeleteFile($id: ID!) {
    deleteFile(id: $id)
  }
`);

export const DomainsQuery = graphql(`
  query CliDomains($slug: String!) {
    appDomains(slug: $slug) { ...CliDomain }
  }
`);

export const AddDomainMutation = graphql(`
  mutation CliAddDomain($slug: String!, $hostname: String!) {
    addDomain(slug: $slug, input: { hostname: $hostname }) {
      ...CliDomain
      ...CliError
    }
  }
`);

export const VerifyDomainMutation = graphql(`
  mutation CliVerifyDomain($slug: String!, $hostname: String!) {
    verifyDomain(slug: $slug, hostname: $hostname) {
      ...CliDomain
      ...CliError
    }
  }
`);

export const RemoveDomainMutation = graphql(`
  mutation CliRemoveDomain($slug: String!, $hostname: String!) {
    removeDomain(slug: $slug, hostname: $hostname)
  }
`);

export const DomainFragment = graphql(`
  fragment CliDomain on Domain {
    hostname verified verifiedAt certificate challengeUrl createdAt
    dnsRecord { type name value }
    txtRecord { type name value }
  }
`);

export const DrainsQuery = graphql(`
  query CliDrains($slug: String!) {
    appDrains(slug: $slug) { ...CliLogDrain }
  }
`);

export const AddLogDrainMutation = graphql(`
  mutation CliAddLogDrain($slug: String!, $url: String!) {
    addLogDrain(slug: $slug, input: { url: $url }) {
      ...CliLogDrain
      ...CliError
    }
  }
`);

export const RemoveLogDrainMutation = graphql(`
  mutation CliRemoveLogDrain($slug: String!, $id: ID!) {
    removeLogDrain(slug: $slug, id: $id)
  }
`);

export const LogDrainFragment = graphql(`
  fragment CliLogDrain on LogDrain { id url sent dropped lastError lastErrorAt createdAt }
`);

export const CronJobsQuery = graphql(`
  query CliCronJobs($slug: String!) {
    app(slug: $slug) { cronJobs { id command schedule timeoutSeconds nextRunAt lastRun { id status exitCode startedAt createdAt } } }
  }
`);

export const RunCronJobMutation = graphql(`
  mutation CliRunCronJob($slug: String!, $id: ID!) {
    runCronJob(slug: $slug, id: $id) {
      ... on Run { id status }
      ...CliError
    }
  }
`);

export const AppMetricsQuery = graphql(`
  query CliAppMetrics($slug: String!, $from: String, $step: String) {
    appMetrics(slug: $slug, from: $from, step: $step) {
      ... on AppMetrics { from to step series { cpu memory memoryLimit requests errors latencyP50 latencyP95 } }
      ...CliError
    }
  }
`);

export const WebhookFragment = graphql(`
  fragment CliWebhook on Webhook { id url events description createdAt }
`);

export const WebhooksQuery = graphql(`
  query CliWebhooks {
    webhooks { ...CliWebhook }
  }
`);

export const CreateWebhookMutation = graphql(`
  mutation CliCreateWebhook($input: CreateWebhookInput!) {
    createWebhook(input: $input) {
      ... on Webhook { ...CliWebhook secret }
      ...CliError
    }
  }
`);

export const DeleteWebhookMutation = graphql(`
  mutation CliDeleteWebhook($id: ID!) {
    deleteWebhook(id: $id)
  }
`);

export const DeliveryFragment = graphql(`
  fragment CliDelivery on WebhookDelivery { id event status attempts responseStatus error durationMs createdAt nextAttemptAt }
`);

export const SendTestWebhookMutation = graphql(`
  mutation CliSendTestWebhook($id: ID!) {
    sendTestWebhook(id: $id) {
      ...CliDelivery
      ...CliError
    }
  }
`);

export const WebhookDeliveriesQuery = graphql(`
  query CliWebhookDeliveries($id: ID!) {
    webhookDeliveries(id: $id) { ...CliDelivery }
  }
`);
