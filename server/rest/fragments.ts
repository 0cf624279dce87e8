// Selections shared by REST documents; each fragment is appended to the documents that spread it.
export const fragments: Record<string, string> = {
  UserFields: `fragment UserFields on User { id name preferred_username: preferredUsername email avatar role status createdAt }`,
  QuotaFields: `fragment QuotaFields on Quota {
    requestsPerMinute maxApps maxDatabases maxInstances cdnBytes maxUploadBytes usage { apps databases instances cdnBytes } }`,
  QuotaRequestFields: `fragment QuotaRequestFields on QuotaRequest { id
    limits { requestsPerMinute maxApps maxDatabases maxInstances cdnBytes maxUploadBytes } reason status decisionReason createdAt decidedAt }`,
  AuditEventFields: `fragment AuditEventFields on AuditEvent { id actorId actorName action targetType targetId details ip createdAt }`,
  OAuthClientFields: `fragment OAuthClientFields on OAuthClient { clientId name description redirectUris public createdAt }`,
  AppFields: `fragment AppFields on App {
    slug name description status statusNote url repo branch autoDeploy previews instances sleepAfterMinutes sleepWorkers hasGitHubToken createdAt updatedAt }`,
  // One app's record only: in the list, every app's would cost more than one request may.
  AppHealthFields: `fragment AppHealthFields on App {
    healthcheck { path intervalSeconds timeoutSeconds } effectiveHealthcheck { path intervalSeconds timeoutSeconds source } }`,
  DeploymentFields: `fragment DeploymentFields on Deployment {
    id status source repo branch commit commitMessage builder createdAt startedAt finishedAt error failureOutput durationMs rollbackOf rollbackable steps { name ms } }`,
  ResourceFields: `fragment ResourceFields on Resource { id type name envKey createdAt }`,
  BackupFields: `fragment BackupFields on Backup { id size trigger createdAt }`,
  DomainFields: `fragment DomainFields on Domain { hostname verified verifiedAt certificate
    dnsRecord { type name value } txtRecord { type name value } challengeUrl createdAt }`,
  FileFields: `fragment FileFields on File { id name size contentType sha256 url createdAt }`,
  LogLineFields: `fragment LogLineFields on LogLine { timestamp kind stream deploymentId instance process runId line }`,
  ProcessFields: `fragment ProcessFields on Process { type command quantity instances { index name instanceId state startedAt restarts } }`,
  RunFields: `fragment RunFields on Run { id command trigger cronJobId status exitCode error timeoutSeconds deploymentId attachUrl createdAt startedAt finishedAt durationMs }`,
  CronJobFields: `fragment CronJobFields on CronJob { id command schedule timeoutSeconds nextRunAt lastRun { ...RunFields } }`,
  LogDrainFields: `fragment LogDrainFields on LogDrain { id url sent dropped lastError lastErrorAt createdAt }`,
  WebhookFields: `fragment WebhookFields on Webhook { id url events description createdAt }`,
  WebhookDeliveryFields: `fragment WebhookDeliveryFields on WebhookDelivery { id event status attempts nextAttemptAt responseStatus error durationMs createdAt lastAttemptAt }`,
  ErrorFields: `fragment ErrorFields on Error { __typename code message httpStatus
    ... on InvalidRequestError { fields { field message } } ... on ConflictError { fields { field message } } }`,
};

/** Appends every fragment a document spreads (and the ones those spread). */
export function withFragments(document: string): string {
  const included = new Set<string>();
  let source = document;
  for (let added = true; added; ) {
    added = false;
    for (const [name, text] of Object.entries(fragments)) {
      if (!included.has(name) && source.includes(`...${name}`)) {
        included.add(name);
        source += `\n${text}`;
        added = true;
      }
    }
  }
  return source;
}
