/* eslint-disable */
import * as types from './graphql.ts';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment CliError on Error {\n    __typename\n    code\n    message\n  }\n": typeof types.CliErrorFragmentDoc,
    "\n  query CliWhoami {\n    viewer {\n      user { id name email role status }\n      quota { maxApps maxDatabases maxInstances maxUploadBytes cdnBytes requestsPerMinute usage { apps databases instances cdnBytes } }\n    }\n  }\n": typeof types.CliWhoamiDocument,
    "\n  query CliApps($after: String) {\n    apps(first: 100, after: $after) { slug name status url repo branch createdAt liveDeployment { id createdAt } }\n  }\n": typeof types.CliAppsDocument,
    "\n  query CliAppInfo($slug: String!) {\n    app(slug: $slug) {\n      slug name description status statusNote url repo branch autoDeploy instances sleepAfterMinutes sleepWorkers restarts createdAt updatedAt\n      liveDeployment { id source builder status createdAt finishedAt commit }\n      deployments(limit: 10) { id source builder status createdAt finishedAt durationMs error failureOutput commit rollbackable rollbackOf }\n      resources { id type name envKey }\n      effectiveHealthcheck { path intervalSeconds timeoutSeconds source }\n    }\n  }\n": typeof types.CliAppInfoDocument,
    "\n  mutation CliSetSleep($slug: String!, $input: UpdateAppInput!) {\n    updateApp(slug: $slug, input: $input) {\n      ... on App { slug sleepAfterMinutes sleepWorkers status }\n      ...CliError\n    }\n  }\n": typeof types.CliSetSleepDocument,
    "\n  query CliHealthCheck($slug: String!) {\n    app(slug: $slug) {\n      slug\n      healthcheck { path intervalSeconds timeoutSeconds }\n      effectiveHealthcheck { path intervalSeconds timeoutSeconds source }\n    }\n  }\n": typeof types.CliHealthCheckDocument,
    "\n  mutation CliSetHealthCheck($slug: String!, $healthcheck: HealthCheckInput) {\n    updateApp(slug: $slug, input: { healthcheck: $healthcheck }) {\n      ... on App { slug effectiveHealthcheck { path intervalSeconds timeoutSeconds source } }\n      ...CliError\n    }\n  }\n": typeof types.CliSetHealthCheckDocument,
    "\n  mutation CliCreateApp($input: CreateAppInput!) {\n    createApp(input: $input) {\n      ... on App { slug name url status }\n      ...CliError\n    }\n  }\n": typeof types.CliCreateAppDocument,
    "\n  mutation CliDeleteApp($slug: String!) {\n    deleteApp(slug: $slug)\n  }\n": typeof types.CliDeleteAppDocument,
    "\n  mutation CliDeployUpload($slug: String!, $upload: ID!) {\n    deployUpload(slug: $slug, upload: $upload) {\n      ... on Deployment { id status }\n      ...CliError\n    }\n  }\n": typeof types.CliDeployUploadDocument,
    "\n  mutation CliDeployRepo($slug: String!, $input: DeployRepoInput) {\n    deployRepo(slug: $slug, input: $input) {\n      ... on Deployment { id status repo branch }\n      ...CliError\n    }\n  }\n": typeof types.CliDeployRepoDocument,
    "\n  subscription CliAppStatus($slug: String!) {\n    app(slug: $slug) { status url deployments(limit: 10) { id status error } }\n  }\n": typeof types.CliAppStatusDocument,
    "\n  query CliDeploymentStatus($slug: String!) {\n    app(slug: $slug) { status url deployments(limit: 20) { id status error } }\n  }\n": typeof types.CliDeploymentStatusDocument,
    "\n  query CliLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {\n    appLogs(slug: $slug, kind: $kind, deployment: $deployment, run: $run, after: $after, limit: $limit) { timestamp stream line deploymentId }\n  }\n": typeof types.CliLogsDocument,
    "\n  subscription CliFollowLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {\n    appLogs(slug: $slug, kind: $kind, deployment: $deployment, run: $run, after: $after, limit: $limit) { timestamp stream line deploymentId }\n  }\n": typeof types.CliFollowLogsDocument,
    "\n  mutation CliStartRun($slug: String!, $input: StartRunInput!) {\n    startRun(slug: $slug, input: $input) {\n      ... on Run { id status attachUrl }\n      ...CliError\n    }\n  }\n": typeof types.CliStartRunDocument,
    "\n  subscription CliRunStatus($slug: String!, $id: ID!) {\n    app(slug: $slug) { run(id: $id) { id status exitCode error } }\n  }\n": typeof types.CliRunStatusDocument,
    "\n  query CliRun($slug: String!, $id: ID!) {\n    appRun(slug: $slug, id: $id) { id status exitCode error }\n  }\n": typeof types.CliRunDocument,
    "\n  query CliRuns($slug: String!) {\n    app(slug: $slug) { runs(first: 20) { id command trigger status exitCode createdAt startedAt durationMs } }\n  }\n": typeof types.CliRunsDocument,
    "\n  mutation CliCancelRun($slug: String!, $id: ID!) {\n    cancelRun(slug: $slug, id: $id) {\n      ... on Run { id status }\n      ...CliError\n    }\n  }\n": typeof types.CliCancelRunDocument,
    "\n  query CliEnv($slug: String!) {\n    appEnv(slug: $slug) { key value }\n  }\n": typeof types.CliEnvDocument,
    "\n  mutation CliSetEnv($slug: String!, $vars: EnvVars!) {\n    setEnv(slug: $slug, vars: $vars) { key value }\n  }\n": typeof types.CliSetEnvDocument,
    "\n  mutation CliUnsetEnv($slug: String!, $key: String!) {\n    unsetEnv(slug: $slug, key: $key)\n  }\n": typeof types.CliUnsetEnvDocument,
    "\n  mutation CliStop($slug: String!) {\n    stopApp(slug: $slug) { slug status }\n  }\n": typeof types.CliStopDocument,
    "\n  fragment CliProcess on Process {\n    type command quantity\n    instances { index name state startedAt restarts }\n  }\n": typeof types.CliProcessFragmentDoc,
    "\n  mutation CliScaleProcesses($slug: String!, $formation: Formation!) {\n    scaleProcesses(slug: $slug, formation: $formation) {\n      ... on MutationScaleProcessesSuccess { data { ...CliProcess } }\n      ...CliError\n    }\n  }\n": typeof types.CliScaleProcessesDocument,
    "\n  mutation CliRestart($slug: String!) {\n    restartApp(slug: $slug) {\n      ... on App { slug status }\n      ...CliError\n    }\n  }\n": typeof types.CliRestartDocument,
    "\n  mutation CliRollback($slug: String!, $input: RollbackInput) {\n    rollback(slug: $slug, input: $input) {\n      ... on Deployment { id status rollbackOf }\n      ...CliError\n    }\n  }\n": typeof types.CliRollbackDocument,
    "\n  query CliPs($slug: String!) {\n    app(slug: $slug) {\n      slug status instances restarts url\n      liveDeployment { id startedAt finishedAt createdAt commit source builder }\n      processes { ...CliProcess }\n    }\n  }\n": typeof types.CliPsDocument,
    "\n  query CliDatabases($slug: String!) {\n    app(slug: $slug) { slug resources { id type name envKey createdAt } }\n  }\n": typeof types.CliDatabasesDocument,
    "\n  query CliDatabase($id: ID!) {\n    resource(id: $id) { id type name envKey createdAt }\n  }\n": typeof types.CliDatabaseDocument,
    "\n  mutation CliCreateDatabase($slug: String!, $input: CreateResourceInput) {\n    createResource(slug: $slug, input: $input) {\n      ... on Resource { id type name envKey createdAt }\n      ...CliError\n    }\n  }\n": typeof types.CliCreateDatabaseDocument,
    "\n  mutation CliDeleteDatabase($id: ID!) {\n    deleteResource(id: $id)\n  }\n": typeof types.CliDeleteDatabaseDocument,
    "\n  mutation CliBackupDatabase($id: ID!) {\n    backupResource(id: $id) {\n      ... on Backup { id size trigger createdAt }\n      ...CliError\n    }\n  }\n": typeof types.CliBackupDatabaseDocument,
    "\n  query CliBackups($id: ID!) {\n    resourceBackups(id: $id) { id size trigger createdAt }\n  }\n": typeof types.CliBackupsDocument,
    "\n  mutation CliRestoreBackup($id: ID!, $backupId: ID!) {\n    restoreBackup(id: $id, backupId: $backupId) {\n      ... on Backup { id size trigger createdAt }\n      ...CliError\n    }\n  }\n": typeof types.CliRestoreBackupDocument,
    "\n  query CliRevealDatabaseUrl($id: ID!) {\n    revealResourceUrl(id: $id)\n  }\n": typeof types.CliRevealDatabaseUrlDocument,
    "\n  fragment CliQuotaRequest on QuotaRequest {\n    id reason status decisionReason createdAt decidedAt\n    limits { requestsPerMinute maxApps maxDatabases maxInstances cdnBytes maxUploadBytes }\n  }\n": typeof types.CliQuotaRequestFragmentDoc,
    "\n  mutation CliRequestQuota($input: QuotaRequestInput!) {\n    requestQuota(input: $input) {\n      ... on QuotaRequest { ...CliQuotaRequest }\n      ...CliError\n    }\n  }\n": typeof types.CliRequestQuotaDocument,
    "\n  query CliQuotaRequests {\n    quotaRequests(first: 10) { ...CliQuotaRequest }\n  }\n": typeof types.CliQuotaRequestsDocument,
    "\n  query CliFiles($after: String) {\n    files(first: 100, after: $after) { id name size contentType sha256 url createdAt }\n  }\n": typeof types.CliFilesDocument,
    "\n  mutation CliDeleteFile($id: ID!) {\n    deleteFile(id: $id)\n  }\n": typeof types.CliDeleteFileDocument,
    "\n  query CliDomains($slug: String!) {\n    appDomains(slug: $slug) { ...CliDomain }\n  }\n": typeof types.CliDomainsDocument,
    "\n  mutation CliAddDomain($slug: String!, $hostname: String!) {\n    addDomain(slug: $slug, input: { hostname: $hostname }) {\n      ...CliDomain\n      ...CliError\n    }\n  }\n": typeof types.CliAddDomainDocument,
    "\n  mutation CliVerifyDomain($slug: String!, $hostname: String!) {\n    verifyDomain(slug: $slug, hostname: $hostname) {\n      ...CliDomain\n      ...CliError\n    }\n  }\n": typeof types.CliVerifyDomainDocument,
    "\n  mutation CliRemoveDomain($slug: String!, $hostname: String!) {\n    removeDomain(slug: $slug, hostname: $hostname)\n  }\n": typeof types.CliRemoveDomainDocument,
    "\n  fragment CliDomain on Domain {\n    hostname verified verifiedAt certificate challengeUrl createdAt\n    dnsRecord { type name value }\n    txtRecord { type name value }\n  }\n": typeof types.CliDomainFragmentDoc,
    "\n  query CliDrains($slug: String!) {\n    appDrains(slug: $slug) { ...CliLogDrain }\n  }\n": typeof types.CliDrainsDocument,
    "\n  mutation CliAddLogDrain($slug: String!, $url: String!) {\n    addLogDrain(slug: $slug, input: { url: $url }) {\n      ...CliLogDrain\n      ...CliError\n    }\n  }\n": typeof types.CliAddLogDrainDocument,
    "\n  mutation CliRemoveLogDrain($slug: String!, $id: ID!) {\n    removeLogDrain(slug: $slug, id: $id)\n  }\n": typeof types.CliRemoveLogDrainDocument,
    "\n  fragment CliLogDrain on LogDrain { id url sent dropped lastError lastErrorAt createdAt }\n": typeof types.CliLogDrainFragmentDoc,
    "\n  query CliCronJobs($slug: String!) {\n    app(slug: $slug) { cronJobs { id command schedule timeoutSeconds nextRunAt lastRun { id status exitCode startedAt createdAt } } }\n  }\n": typeof types.CliCronJobsDocument,
    "\n  mutation CliRunCronJob($slug: String!, $id: ID!) {\n    runCronJob(slug: $slug, id: $id) {\n      ... on Run { id status }\n      ...CliError\n    }\n  }\n": typeof types.CliRunCronJobDocument,
    "\n  query CliAppMetrics($slug: String!, $from: String, $step: String) {\n    appMetrics(slug: $slug, from: $from, step: $step) {\n      ... on AppMetrics { from to step series { cpu memory memoryLimit requests errors latencyP50 latencyP95 } }\n      ...CliError\n    }\n  }\n": typeof types.CliAppMetricsDocument,
    "\n  fragment CliWebhook on Webhook { id url events description createdAt }\n": typeof types.CliWebhookFragmentDoc,
    "\n  query CliWebhooks {\n    webhooks { ...CliWebhook }\n  }\n": typeof types.CliWebhooksDocument,
    "\n  mutation CliCreateWebhook($input: CreateWebhookInput!) {\n    createWebhook(input: $input) {\n      ... on Webhook { ...CliWebhook secret }\n      ...CliError\n    }\n  }\n": typeof types.CliCreateWebhookDocument,
    "\n  mutation CliDeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id)\n  }\n": typeof types.CliDeleteWebhookDocument,
    "\n  fragment CliDelivery on WebhookDelivery { id event status attempts responseStatus error durationMs createdAt nextAttemptAt }\n": typeof types.CliDeliveryFragmentDoc,
    "\n  mutation CliSendTestWebhook($id: ID!) {\n    sendTestWebhook(id: $id) {\n      ...CliDelivery\n      ...CliError\n    }\n  }\n": typeof types.CliSendTestWebhookDocument,
    "\n  query CliWebhookDeliveries($id: ID!) {\n    webhookDeliveries(id: $id) { ...CliDelivery }\n  }\n": typeof types.CliWebhookDeliveriesDocument,
};
const documents: Documents = {
    "\n  fragment CliError on Error {\n    __typename\n    code\n    message\n  }\n": types.CliErrorFragmentDoc,
    "\n  query CliWhoami {\n    viewer {\n      user { id name email role status }\n      quota { maxApps maxDatabases maxInstances maxUploadBytes cdnBytes requestsPerMinute usage { apps databases instances cdnBytes } }\n    }\n  }\n": types.CliWhoamiDocument,
    "\n  query CliApps($after: String) {\n    apps(first: 100, after: $after) { slug name status url repo branch createdAt liveDeployment { id createdAt } }\n  }\n": types.CliAppsDocument,
    "\n  query CliAppInfo($slug: String!) {\n    app(slug: $slug) {\n      slug name description status statusNote url repo branch autoDeploy instances sleepAfterMinutes sleepWorkers restarts createdAt updatedAt\n      liveDeployment { id source builder status createdAt finishedAt commit }\n      deployments(limit: 10) { id source builder status createdAt finishedAt durationMs error failureOutput commit rollbackable rollbackOf }\n      resources { id type name envKey }\n      effectiveHealthcheck { path intervalSeconds timeoutSeconds source }\n    }\n  }\n": types.CliAppInfoDocument,
    "\n  mutation CliSetSleep($slug: String!, $input: UpdateAppInput!) {\n    updateApp(slug: $slug, input: $input) {\n      ... on App { slug sleepAfterMinutes sleepWorkers status }\n      ...CliError\n    }\n  }\n": types.CliSetSleepDocument,
    "\n  query CliHealthCheck($slug: String!) {\n    app(slug: $slug) {\n      slug\n      healthcheck { path intervalSeconds timeoutSeconds }\n      effectiveHealthcheck { path intervalSeconds timeoutSeconds source }\n    }\n  }\n": types.CliHealthCheckDocument,
    "\n  mutation CliSetHealthCheck($slug: String!, $healthcheck: HealthCheckInput) {\n    updateApp(slug: $slug, input: { healthcheck: $healthcheck }) {\n      ... on App { slug effectiveHealthcheck { path intervalSeconds timeoutSeconds source } }\n      ...CliError\n    }\n  }\n": types.CliSetHealthCheckDocument,
    "\n  mutation CliCreateApp($input: CreateAppInput!) {\n    createApp(input: $input) {\n      ... on App { slug name url status }\n      ...CliError\n    }\n  }\n": types.CliCreateAppDocument,
    "\n  mutation CliDeleteApp($slug: String!) {\n    deleteApp(slug: $slug)\n  }\n": types.CliDeleteAppDocument,
    "\n  mutation CliDeployUpload($slug: String!, $upload: ID!) {\n    deployUpload(slug: $slug, upload: $upload) {\n      ... on Deployment { id status }\n      ...CliError\n    }\n  }\n": types.CliDeployUploadDocument,
    "\n  mutation CliDeployRepo($slug: String!, $input: DeployRepoInput) {\n    deployRepo(slug: $slug, input: $input) {\n      ... on Deployment { id status repo branch }\n      ...CliError\n    }\n  }\n": types.CliDeployRepoDocument,
    "\n  subscription CliAppStatus($slug: String!) {\n    app(slug: $slug) { status url deployments(limit: 10) { id status error } }\n  }\n": types.CliAppStatusDocument,
    "\n  query CliDeploymentStatus($slug: String!) {\n    app(slug: $slug) { status url deployments(limit: 20) { id status error } }\n  }\n": types.CliDeploymentStatusDocument,
    "\n  query CliLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {\n    appLogs(slug: $slug, kind: $kind, deployment: $deployment, run: $run, after: $after, limit: $limit) { timestamp stream line deploymentId }\n  }\n": types.CliLogsDocument,
    "\n  subscription CliFollowLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {\n    appLogs(slug: $slug, kind: $kind, deployment: $deployment, run: $run, after: $after, limit: $limit) { timestamp stream line deploymentId }\n  }\n": types.CliFollowLogsDocument,
    "\n  mutation CliStartRun($slug: String!, $input: StartRunInput!) {\n    startRun(slug: $slug, input: $input) {\n      ... on Run { id status attachUrl }\n      ...CliError\n    }\n  }\n": types.CliStartRunDocument,
    "\n  subscription CliRunStatus($slug: String!, $id: ID!) {\n    app(slug: $slug) { run(id: $id) { id status exitCode error } }\n  }\n": types.CliRunStatusDocument,
    "\n  query CliRun($slug: String!, $id: ID!) {\n    appRun(slug: $slug, id: $id) { id status exitCode error }\n  }\n": types.CliRunDocument,
    "\n  query CliRuns($slug: String!) {\n    app(slug: $slug) { runs(first: 20) { id command trigger status exitCode createdAt startedAt durationMs } }\n  }\n": types.CliRunsDocument,
    "\n  mutation CliCancelRun($slug: String!, $id: ID!) {\n    cancelRun(slug: $slug, id: $id) {\n      ... on Run { id status }\n      ...CliError\n    }\n  }\n": types.CliCancelRunDocument,
    "\n  query CliEnv($slug: String!) {\n    appEnv(slug: $slug) { key value }\n  }\n": types.CliEnvDocument,
    "\n  mutation CliSetEnv($slug: String!, $vars: EnvVars!) {\n    setEnv(slug: $slug, vars: $vars) { key value }\n  }\n": types.CliSetEnvDocument,
    "\n  mutation CliUnsetEnv($slug: String!, $key: String!) {\n    unsetEnv(slug: $slug, key: $key)\n  }\n": types.CliUnsetEnvDocument,
    "\n  mutation CliStop($slug: String!) {\n    stopApp(slug: $slug) { slug status }\n  }\n": types.CliStopDocument,
    "\n  fragment CliProcess on Process {\n    type command quantity\n    instances { index name state startedAt restarts }\n  }\n": types.CliProcessFragmentDoc,
    "\n  mutation CliScaleProcesses($slug: String!, $formation: Formation!) {\n    scaleProcesses(slug: $slug, formation: $formation) {\n      ... on MutationScaleProcessesSuccess { data { ...CliProcess } }\n      ...CliError\n    }\n  }\n": types.CliScaleProcessesDocument,
    "\n  mutation CliRestart($slug: String!) {\n    restartApp(slug: $slug) {\n      ... on App { slug status }\n      ...CliError\n    }\n  }\n": types.CliRestartDocument,
    "\n  mutation CliRollback($slug: String!, $input: RollbackInput) {\n    rollback(slug: $slug, input: $input) {\n      ... on Deployment { id status rollbackOf }\n      ...CliError\n    }\n  }\n": types.CliRollbackDocument,
    "\n  query CliPs($slug: String!) {\n    app(slug: $slug) {\n      slug status instances restarts url\n      liveDeployment { id startedAt finishedAt createdAt commit source builder }\n      processes { ...CliProcess }\n    }\n  }\n": types.CliPsDocument,
    "\n  query CliDatabases($slug: String!) {\n    app(slug: $slug) { slug resources { id type name envKey createdAt } }\n  }\n": types.CliDatabasesDocument,
    "\n  query CliDatabase($id: ID!) {\n    resource(id: $id) { id type name envKey createdAt }\n  }\n": types.CliDatabaseDocument,
    "\n  mutation CliCreateDatabase($slug: String!, $input: CreateResourceInput) {\n    createResource(slug: $slug, input: $input) {\n      ... on Resource { id type name envKey createdAt }\n      ...CliError\n    }\n  }\n": types.CliCreateDatabaseDocument,
    "\n  mutation CliDeleteDatabase($id: ID!) {\n    deleteResource(id: $id)\n  }\n": types.CliDeleteDatabaseDocument,
    "\n  mutation CliBackupDatabase($id: ID!) {\n    backupResource(id: $id) {\n      ... on Backup { id size trigger createdAt }\n      ...CliError\n    }\n  }\n": types.CliBackupDatabaseDocument,
    "\n  query CliBackups($id: ID!) {\n    resourceBackups(id: $id) { id size trigger createdAt }\n  }\n": types.CliBackupsDocument,
    "\n  mutation CliRestoreBackup($id: ID!, $backupId: ID!) {\n    restoreBackup(id: $id, backupId: $backupId) {\n      ... on Backup { id size trigger createdAt }\n      ...CliError\n    }\n  }\n": types.CliRestoreBackupDocument,
    "\n  query CliRevealDatabaseUrl($id: ID!) {\n    revealResourceUrl(id: $id)\n  }\n": types.CliRevealDatabaseUrlDocument,
    "\n  fragment CliQuotaRequest on QuotaRequest {\n    id reason status decisionReason createdAt decidedAt\n    limits { requestsPerMinute maxApps maxDatabases maxInstances cdnBytes maxUploadBytes }\n  }\n": types.CliQuotaRequestFragmentDoc,
    "\n  mutation CliRequestQuota($input: QuotaRequestInput!) {\n    requestQuota(input: $input) {\n      ... on QuotaRequest { ...CliQuotaRequest }\n      ...CliError\n    }\n  }\n": types.CliRequestQuotaDocument,
    "\n  query CliQuotaRequests {\n    quotaRequests(first: 10) { ...CliQuotaRequest }\n  }\n": types.CliQuotaRequestsDocument,
    "\n  query CliFiles($after: String) {\n    files(first: 100, after: $after) { id name size contentType sha256 url createdAt }\n  }\n": types.CliFilesDocument,
    "\n  mutation CliDeleteFile($id: ID!) {\n    deleteFile(id: $id)\n  }\n": types.CliDeleteFileDocument,
    "\n  query CliDomains($slug: String!) {\n    appDomains(slug: $slug) { ...CliDomain }\n  }\n": types.CliDomainsDocument,
    "\n  mutation CliAddDomain($slug: String!, $hostname: String!) {\n    addDomain(slug: $slug, input: { hostname: $hostname }) {\n      ...CliDomain\n      ...CliError\n    }\n  }\n": types.CliAddDomainDocument,
    "\n  mutation CliVerifyDomain($slug: String!, $hostname: String!) {\n    verifyDomain(slug: $slug, hostname: $hostname) {\n      ...CliDomain\n      ...CliError\n    }\n  }\n": types.CliVerifyDomainDocument,
    "\n  mutation CliRemoveDomain($slug: String!, $hostname: String!) {\n    removeDomain(slug: $slug, hostname: $hostname)\n  }\n": types.CliRemoveDomainDocument,
    "\n  fragment CliDomain on Domain {\n    hostname verified verifiedAt certificate challengeUrl createdAt\n    dnsRecord { type name value }\n    txtRecord { type name value }\n  }\n": types.CliDomainFragmentDoc,
    "\n  query CliDrains($slug: String!) {\n    appDrains(slug: $slug) { ...CliLogDrain }\n  }\n": types.CliDrainsDocument,
    "\n  mutation CliAddLogDrain($slug: String!, $url: String!) {\n    addLogDrain(slug: $slug, input: { url: $url }) {\n      ...CliLogDrain\n      ...CliError\n    }\n  }\n": types.CliAddLogDrainDocument,
    "\n  mutation CliRemoveLogDrain($slug: String!, $id: ID!) {\n    removeLogDrain(slug: $slug, id: $id)\n  }\n": types.CliRemoveLogDrainDocument,
    "\n  fragment CliLogDrain on LogDrain { id url sent dropped lastError lastErrorAt createdAt }\n": types.CliLogDrainFragmentDoc,
    "\n  query CliCronJobs($slug: String!) {\n    app(slug: $slug) { cronJobs { id command schedule timeoutSeconds nextRunAt lastRun { id status exitCode startedAt createdAt } } }\n  }\n": types.CliCronJobsDocument,
    "\n  mutation CliRunCronJob($slug: String!, $id: ID!) {\n    runCronJob(slug: $slug, id: $id) {\n      ... on Run { id status }\n      ...CliError\n    }\n  }\n": types.CliRunCronJobDocument,
    "\n  query CliAppMetrics($slug: String!, $from: String, $step: String) {\n    appMetrics(slug: $slug, from: $from, step: $step) {\n      ... on AppMetrics { from to step series { cpu memory memoryLimit requests errors latencyP50 latencyP95 } }\n      ...CliError\n    }\n  }\n": types.CliAppMetricsDocument,
    "\n  fragment CliWebhook on Webhook { id url events description createdAt }\n": types.CliWebhookFragmentDoc,
    "\n  query CliWebhooks {\n    webhooks { ...CliWebhook }\n  }\n": types.CliWebhooksDocument,
    "\n  mutation CliCreateWebhook($input: CreateWebhookInput!) {\n    createWebhook(input: $input) {\n      ... on Webhook { ...CliWebhook secret }\n      ...CliError\n    }\n  }\n": types.CliCreateWebhookDocument,
    "\n  mutation CliDeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id)\n  }\n": types.CliDeleteWebhookDocument,
    "\n  fragment CliDelivery on WebhookDelivery { id event status attempts responseStatus error durationMs createdAt nextAttemptAt }\n": types.CliDeliveryFragmentDoc,
    "\n  mutation CliSendTestWebhook($id: ID!) {\n    sendTestWebhook(id: $id) {\n      ...CliDelivery\n      ...CliError\n    }\n  }\n": types.CliSendTestWebhookDocument,
    "\n  query CliWebhookDeliveries($id: ID!) {\n    webhookDeliveries(id: $id) { ...CliDelivery }\n  }\n": types.CliWebhookDeliveriesDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CliError on Error {\n    __typename\n    code\n    message\n  }\n"): typeof import('./graphql.ts').CliErrorFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliWhoami {\n    viewer {\n      user { id name email role status }\n      quota { maxApps maxDatabases maxInstances maxUploadBytes cdnBytes requestsPerMinute usage { apps databases instances cdnBytes } }\n    }\n  }\n"): typeof import('./graphql.ts').CliWhoamiDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliApps($after: String) {\n    apps(first: 100, after: $after) { slug name status url repo branch createdAt liveDeployment { id createdAt } }\n  }\n"): typeof import('./graphql.ts').CliAppsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliAppInfo($slug: String!) {\n    app(slug: $slug) {\n      slug name description status statusNote url repo branch autoDeploy instances sleepAfterMinutes sleepWorkers restarts createdAt updatedAt\n      liveDeployment { id source builder status createdAt finishedAt commit }\n      deployments(limit: 10) { id source builder status createdAt finishedAt durationMs error failureOutput commit rollbackable rollbackOf }\n      resources { id type name envKey }\n      effectiveHealthcheck { path intervalSeconds timeoutSeconds source }\n    }\n  }\n"): typeof import('./graphql.ts').CliAppInfoDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliSetSleep($slug: String!, $input: UpdateAppInput!) {\n    updateApp(slug: $slug, input: $input) {\n      ... on App { slug sleepAfterMinutes sleepWorkers status }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliSetSleepDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliHealthCheck($slug: String!) {\n    app(slug: $slug) {\n      slug\n      healthcheck { path intervalSeconds timeoutSeconds }\n      effectiveHealthcheck { path intervalSeconds timeoutSeconds source }\n    }\n  }\n"): typeof import('./graphql.ts').CliHealthCheckDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliSetHealthCheck($slug: String!, $healthcheck: HealthCheckInput) {\n    updateApp(slug: $slug, input: { healthcheck: $healthcheck }) {\n      ... on App { slug effectiveHealthcheck { path intervalSeconds timeoutSeconds source } }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliSetHealthCheckDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliCreateApp($input: CreateAppInput!) {\n    createApp(input: $input) {\n      ... on App { slug name url status }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliCreateAppDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliDeleteApp($slug: String!) {\n    deleteApp(slug: $slug)\n  }\n"): typeof import('./graphql.ts').CliDeleteAppDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliDeployUpload($slug: String!, $upload: ID!) {\n    deployUpload(slug: $slug, upload: $upload) {\n      ... on Deployment { id status }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliDeployUploadDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliDeployRepo($slug: String!, $input: DeployRepoInput) {\n    deployRepo(slug: $slug, input: $input) {\n      ... on Deployment { id status repo branch }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliDeployRepoDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription CliAppStatus($slug: String!) {\n    app(slug: $slug) { status url deployments(limit: 10) { id status error } }\n  }\n"): typeof import('./graphql.ts').CliAppStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliDeploymentStatus($slug: String!) {\n    app(slug: $slug) { status url deployments(limit: 20) { id status error } }\n  }\n"): typeof import('./graphql.ts').CliDeploymentStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {\n    appLogs(slug: $slug, kind: $kind, deployment: $deployment, run: $run, after: $after, limit: $limit) { timestamp stream line deploymentId }\n  }\n"): typeof import('./graphql.ts').CliLogsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription CliFollowLogs($slug: String!, $kind: LogKind, $deployment: ID, $run: ID, $after: String, $limit: Int) {\n    appLogs(slug: $slug, kind: $kind, deployment: $deployment, run: $run, after: $after, limit: $limit) { timestamp stream line deploymentId }\n  }\n"): typeof import('./graphql.ts').CliFollowLogsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliStartRun($slug: String!, $input: StartRunInput!) {\n    startRun(slug: $slug, input: $input) {\n      ... on Run { id status attachUrl }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliStartRunDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription CliRunStatus($slug: String!, $id: ID!) {\n    app(slug: $slug) { run(id: $id) { id status exitCode error } }\n  }\n"): typeof import('./graphql.ts').CliRunStatusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliRun($slug: String!, $id: ID!) {\n    appRun(slug: $slug, id: $id) { id status exitCode error }\n  }\n"): typeof import('./graphql.ts').CliRunDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliRuns($slug: String!) {\n    app(slug: $slug) { runs(first: 20) { id command trigger status exitCode createdAt startedAt durationMs } }\n  }\n"): typeof import('./graphql.ts').CliRunsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliCancelRun($slug: String!, $id: ID!) {\n    cancelRun(slug: $slug, id: $id) {\n      ... on Run { id status }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliCancelRunDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliEnv($slug: String!) {\n    appEnv(slug: $slug) { key value }\n  }\n"): typeof import('./graphql.ts').CliEnvDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliSetEnv($slug: String!, $vars: EnvVars!) {\n    setEnv(slug: $slug, vars: $vars) { key value }\n  }\n"): typeof import('./graphql.ts').CliSetEnvDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliUnsetEnv($slug: String!, $key: String!) {\n    unsetEnv(slug: $slug, key: $key)\n  }\n"): typeof import('./graphql.ts').CliUnsetEnvDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliStop($slug: String!) {\n    stopApp(slug: $slug) { slug status }\n  }\n"): typeof import('./graphql.ts').CliStopDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CliProcess on Process {\n    type command quantity\n    instances { index name state startedAt restarts }\n  }\n"): typeof import('./graphql.ts').CliProcessFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliScaleProcesses($slug: String!, $formation: Formation!) {\n    scaleProcesses(slug: $slug, formation: $formation) {\n      ... on MutationScaleProcessesSuccess { data { ...CliProcess } }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliScaleProcessesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliRestart($slug: String!) {\n    restartApp(slug: $slug) {\n      ... on App { slug status }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliRestartDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliRollback($slug: String!, $input: RollbackInput) {\n    rollback(slug: $slug, input: $input) {\n      ... on Deployment { id status rollbackOf }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliRollbackDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliPs($slug: String!) {\n    app(slug: $slug) {\n      slug status instances restarts url\n      liveDeployment { id startedAt finishedAt createdAt commit source builder }\n      processes { ...CliProcess }\n    }\n  }\n"): typeof import('./graphql.ts').CliPsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliDatabases($slug: String!) {\n    app(slug: $slug) { slug resources { id type name envKey createdAt } }\n  }\n"): typeof import('./graphql.ts').CliDatabasesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliDatabase($id: ID!) {\n    resource(id: $id) { id type name envKey createdAt }\n  }\n"): typeof import('./graphql.ts').CliDatabaseDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliCreateDatabase($slug: String!, $input: CreateResourceInput) {\n    createResource(slug: $slug, input: $input) {\n      ... on Resource { id type name envKey createdAt }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliCreateDatabaseDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliDeleteDatabase($id: ID!) {\n    deleteResource(id: $id)\n  }\n"): typeof import('./graphql.ts').CliDeleteDatabaseDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliBackupDatabase($id: ID!) {\n    backupResource(id: $id) {\n      ... on Backup { id size trigger createdAt }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliBackupDatabaseDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliBackups($id: ID!) {\n    resourceBackups(id: $id) { id size trigger createdAt }\n  }\n"): typeof import('./graphql.ts').CliBackupsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliRestoreBackup($id: ID!, $backupId: ID!) {\n    restoreBackup(id: $id, backupId: $backupId) {\n      ... on Backup { id size trigger createdAt }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliRestoreBackupDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliRevealDatabaseUrl($id: ID!) {\n    revealResourceUrl(id: $id)\n  }\n"): typeof import('./graphql.ts').CliRevealDatabaseUrlDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CliQuotaRequest on QuotaRequest {\n    id reason status decisionReason createdAt decidedAt\n    limits { requestsPerMinute maxApps maxDatabases maxInstances cdnBytes maxUploadBytes }\n  }\n"): typeof import('./graphql.ts').CliQuotaRequestFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliRequestQuota($input: QuotaRequestInput!) {\n    requestQuota(input: $input) {\n      ... on QuotaRequest { ...CliQuotaRequest }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliRequestQuotaDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliQuotaRequests {\n    quotaRequests(first: 10) { ...CliQuotaRequest }\n  }\n"): typeof import('./graphql.ts').CliQuotaRequestsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliFiles($after: String) {\n    files(first: 100, after: $after) { id name size contentType sha256 url createdAt }\n  }\n"): typeof import('./graphql.ts').CliFilesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliDeleteFile($id: ID!) {\n    deleteFile(id: $id)\n  }\n"): typeof import('./graphql.ts').CliDeleteFileDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliDomains($slug: String!) {\n    appDomains(slug: $slug) { ...CliDomain }\n  }\n"): typeof import('./graphql.ts').CliDomainsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliAddDomain($slug: String!, $hostname: String!) {\n    addDomain(slug: $slug, input: { hostname: $hostname }) {\n      ...CliDomain\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliAddDomainDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliVerifyDomain($slug: String!, $hostname: String!) {\n    verifyDomain(slug: $slug, hostname: $hostname) {\n      ...CliDomain\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliVerifyDomainDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliRemoveDomain($slug: String!, $hostname: String!) {\n    removeDomain(slug: $slug, hostname: $hostname)\n  }\n"): typeof import('./graphql.ts').CliRemoveDomainDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CliDomain on Domain {\n    hostname verified verifiedAt certificate challengeUrl createdAt\n    dnsRecord { type name value }\n    txtRecord { type name value }\n  }\n"): typeof import('./graphql.ts').CliDomainFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliDrains($slug: String!) {\n    appDrains(slug: $slug) { ...CliLogDrain }\n  }\n"): typeof import('./graphql.ts').CliDrainsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliAddLogDrain($slug: String!, $url: String!) {\n    addLogDrain(slug: $slug, input: { url: $url }) {\n      ...CliLogDrain\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliAddLogDrainDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliRemoveLogDrain($slug: String!, $id: ID!) {\n    removeLogDrain(slug: $slug, id: $id)\n  }\n"): typeof import('./graphql.ts').CliRemoveLogDrainDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CliLogDrain on LogDrain { id url sent dropped lastError lastErrorAt createdAt }\n"): typeof import('./graphql.ts').CliLogDrainFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliCronJobs($slug: String!) {\n    app(slug: $slug) { cronJobs { id command schedule timeoutSeconds nextRunAt lastRun { id status exitCode startedAt createdAt } } }\n  }\n"): typeof import('./graphql.ts').CliCronJobsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliRunCronJob($slug: String!, $id: ID!) {\n    runCronJob(slug: $slug, id: $id) {\n      ... on Run { id status }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliRunCronJobDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliAppMetrics($slug: String!, $from: String, $step: String) {\n    appMetrics(slug: $slug, from: $from, step: $step) {\n      ... on AppMetrics { from to step series { cpu memory memoryLimit requests errors latencyP50 latencyP95 } }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliAppMetricsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CliWebhook on Webhook { id url events description createdAt }\n"): typeof import('./graphql.ts').CliWebhookFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliWebhooks {\n    webhooks { ...CliWebhook }\n  }\n"): typeof import('./graphql.ts').CliWebhooksDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliCreateWebhook($input: CreateWebhookInput!) {\n    createWebhook(input: $input) {\n      ... on Webhook { ...CliWebhook secret }\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliCreateWebhookDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliDeleteWebhook($id: ID!) {\n    deleteWebhook(id: $id)\n  }\n"): typeof import('./graphql.ts').CliDeleteWebhookDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CliDelivery on WebhookDelivery { id event status attempts responseStatus error durationMs createdAt nextAttemptAt }\n"): typeof import('./graphql.ts').CliDeliveryFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CliSendTestWebhook($id: ID!) {\n    sendTestWebhook(id: $id) {\n      ...CliDelivery\n      ...CliError\n    }\n  }\n"): typeof import('./graphql.ts').CliSendTestWebhookDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CliWebhookDeliveries($id: ID!) {\n    webhookDeliveries(id: $id) { ...CliDelivery }\n  }\n"): typeof import('./graphql.ts').CliWebhookDeliveriesDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
