// The REST route table: each documented route runs one GraphQL operation of the same schema.
// `input` names the variable the JSON body becomes; the root field's value is the response body.
import type { RestRoute } from "./types.ts";

export const routes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/me",
    tag: "account",
    summary: "The signed-in user and their quota",
    document: `query Viewer { viewer { user { ...UserFields } quota { ...QuotaFields } } }`,
  },
  {
    method: "PATCH",
    path: "/api/me",
    tag: "account",
    summary: "Change your handle and/or email `{name?, email?, currentPassword?}` (the current password is needed for the email; a new email is unverified until its mailed link is followed)",
    document: `mutation UpdateAccount($input: UpdateAccountInput!) { updateAccount(input: $input) { ... on User { ...UserFields } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "POST",
    path: "/api/me/password",
    tag: "account",
    summary: "Change your password `{currentPassword, newPassword}`; every other session is signed out",
    document: `mutation ChangePassword($input: ChangePasswordInput!) {
      changePassword(input: $input) { ... on PasswordChanged { signedOutSessions } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "GET",
    path: "/api/me/sessions",
    tag: "account",
    summary: "Your active sessions (device, address, last used, which is this one), most recently used first (the first 100)",
    document: `query Sessions { sessions(first: 100) { id device userAgent address createdAt lastUsedAt current } }`,
  },
  {
    method: "DELETE",
    path: "/api/me/sessions",
    tag: "account",
    summary: "Sign out every session but this one",
    document: `mutation RevokeOtherSessions { revokeOtherSessions }`,
    status: 204,
  },
  {
    method: "DELETE",
    path: "/api/me/sessions/:id",
    tag: "account",
    summary: "Sign one of your sessions out (404 for an id that is not an active session of yours)",
    document: `mutation RevokeSession($id: ID!) { revokeSession(id: $id) }`,
    status: 204,
  },
  {
    method: "DELETE",
    path: "/api/me",
    tag: "account",
    summary: "Delete your account `{confirm: \"<your handle>\"}` with its apps, databases, files, OAuth clients and tokens (dashboard session only)",
    document: `mutation DeleteAccount($input: DeleteAccountInput!) { deleteAccount(input: $input) }`,
    input: "input",
    status: 204,
  },
  {
    method: "POST",
    path: "/api/auth/signup",
    tag: "account",
    summary: "Create an account; starts a dashboard session (cookie)",
    document: `mutation Signup($input: SignupInput!) { signup(input: $input) { ... on AuthPayload { user { ...UserFields } } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "POST",
    path: "/api/auth/login",
    tag: "account",
    summary: "Sign in with email and password; starts a dashboard session (cookie)",
    document: `mutation Login($input: LoginInput!) { login(input: $input) { ... on AuthPayload { user { ...UserFields } } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "POST",
    path: "/api/auth/logout",
    tag: "account",
    summary: "Sign out: revokes the session server-side",
    document: `mutation Logout { logout }`,
    status: 204,
  },
  {
    method: "POST",
    path: "/api/auth/verify",
    tag: "account",
    summary: "Verify the email address from the link mailed to it (the dashboard's /verify page calls this)",
    document: `mutation VerifyEmail($input: VerifyEmailInput!) { verifyEmail(input: $input) { ... on UserPayload { user { ...UserFields } } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "POST",
    path: "/api/auth/password-reset",
    tag: "account",
    summary: "Mail a password-reset link; always 202, whether or not an account uses the address",
    document: `mutation RequestPasswordReset($input: PasswordResetRequestInput!) {
      requestPasswordReset(input: $input) { ... on EmailSent { message } ...ErrorFields } }`,
    input: "input",
    status: 202,
  },
  {
    method: "POST",
    path: "/api/auth/password-reset/confirm",
    tag: "account",
    summary: "Set a new password from a password-reset link; signs the account out everywhere",
    document: `mutation ResetPassword($input: ResetPasswordInput!) { resetPassword(input: $input) { ... on UserPayload { user { ...UserFields } } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "POST",
    path: "/api/quota/requests",
    tag: "quota",
    summary: "Ask for higher limits with a reason (one pending request at a time: 409 otherwise)",
    document: `mutation RequestQuota($input: QuotaRequestInput!) {
      requestQuota(input: $input) { ... on QuotaRequest { ...QuotaRequestFields } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "GET",
    path: "/api/quota/requests",
    tag: "quota",
    summary: "Your limit requests and their decisions, newest first (the latest 50)",
    document: `query QuotaRequests { quotaRequests(first: 50) { ...QuotaRequestFields } }`,
  },
  {
    method: "GET",
    path: "/api/admin/stats",
    tag: "admin",
    summary: "Platform-wide counts: users, apps by status, deployments, databases, CDN, OAuth, pending limit requests",
    document: `query AdminStats { adminStats {
      users { total active pending suspended }
      apps { total byStatus { CREATED DEPLOYING RUNNING CRASHED STOPPED FAILED } }
      deployments { total last24h failedLast24h }
      databases cdn { files bytes } oauth { clients activeTokens } quotaRequests { pending } } }`,
  },
  {
    method: "GET",
    path: "/api/admin/users",
    tag: "admin",
    summary: "Accounts with their quota, newest first, 40 at a time: `q` (part of email or name), `status`, `role`, `after` (last id)",
    document: `query AdminUsers($q: String, $status: UserStatus, $role: Role, $after: String) {
      adminUsers(q: $q, status: $status, role: $role, after: $after, first: 40) { ...UserFields quota { ...QuotaFields } } }`,
    variables: ({ query }) => ({ q: query.q || undefined, status: query.status || undefined, role: query.role || undefined, after: query.after || undefined }),
  },
  {
    method: "PATCH",
    path: "/api/admin/users/:id",
    tag: "admin",
    summary: "Change an account's role, status (SUSPENDED stops its sessions, tokens and apps) and/or quota",
    document: `mutation UpdateUser($id: ID!, $input: UpdateUserInput!) {
      updateUser(id: $id, input: $input) { ... on User { ...UserFields } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "GET",
    path: "/api/admin/approvals",
    tag: "admin",
    summary: "Accounts waiting for approval, oldest first, 100 at a time (`after`: last id)",
    document: `query Approvals($after: String) { approvals(after: $after, first: 100) { ...UserFields } }`,
    variables: ({ query }) => ({ after: query.after || undefined }),
  },
  {
    method: "POST",
    path: "/api/admin/approvals/:id",
    tag: "admin",
    summary: "Approve (ACTIVE) or reject (SUSPENDED) a pending account: `{decision: \"approve\"|\"reject\"}`",
    document: `mutation DecideApproval($id: ID!, $input: ApprovalInput!) {
      decideApproval(id: $id, input: $input) { ... on User { ...UserFields } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "GET",
    path: "/api/admin/quota-requests",
    tag: "admin",
    summary: "Limit requests with who asked, 40 at a time: `status`, `after` (last id)",
    document: `query AdminQuotaRequests($status: QuotaRequestStatus, $after: String) {
      adminQuotaRequests(status: $status, after: $after, first: 40) { ...QuotaRequestFields user { ...UserFields } } }`,
    variables: ({ query }) => ({ status: query.status || undefined, after: query.after || undefined }),
  },
  {
    method: "POST",
    path: "/api/admin/quota-requests/:id",
    tag: "admin",
    summary: "Approve a limit request (as asked, or with adjusted `limits`; the quota rises at once) or deny it with a `reason`",
    document: `mutation DecideQuotaRequest($id: ID!, $input: QuotaDecisionInput!) {
      decideQuotaRequest(id: $id, input: $input) { ... on QuotaRequest { ...QuotaRequestFields } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "GET",
    path: "/api/admin/audit",
    tag: "admin",
    summary: "The audit log, newest first, 100 at a time: `actor` (id or handle), `action` (or a prefix ending in a dot), `target` (id), `since`, `until`, `after` (last id)",
    document: `query AuditEvents($actor: String, $action: String, $target: String, $since: DateTime, $until: DateTime, $after: String) {
      auditEvents(actor: $actor, action: $action, target: $target, since: $since, until: $until, after: $after, first: 100) { ...AuditEventFields } }`,
    variables: ({ query }) => ({
      actor: query.actor || undefined,
      action: query.action || undefined,
      target: query.target || undefined,
      since: query.since || undefined,
      until: query.until || undefined,
      after: query.after || undefined,
    }),
  },
  {
    method: "GET",
    path: "/api/oauth/clients",
    tag: "oauth",
    summary: "The OAuth clients you registered (never their secrets)",
    document: `query OAuthClients { oauthClients(first: 100) { ...OAuthClientFields } }`,
  },
  {
    method: "POST",
    path: "/api/oauth/clients",
    tag: "oauth",
    summary: "Register an OAuth client; a confidential client's answer holds its secret, shown only this once",
    document: `mutation CreateOAuthClient($input: CreateOAuthClientInput!) {
      createOAuthClient(input: $input) {
        ... on OAuthClient { ...OAuthClientFields }
        ... on OAuthClientWithSecret { clientId name description redirectUris public createdAt clientSecret }
        ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "POST",
    path: "/api/oauth/clients/:clientId/secret",
    tag: "oauth",
    summary: "Rotate a confidential client's secret: the answer holds the new one, shown only this once; the old one stops working",
    document: `mutation RotateOAuthClientSecret($clientId: String!) {
      rotateOAuthClientSecret(clientId: $clientId) {
        ... on OAuthClientWithSecret { clientId name description redirectUris public createdAt clientSecret }
        ...ErrorFields } }`,
  },
  {
    method: "GET",
    path: "/oauth/userinfo",
    tag: "oauth",
    summary: "The user an access token belongs to, and the token's scopes",
    document: `query UserInfo { userinfo { id name preferred_username: preferredUsername email avatar role status scopes } }`,
  },
  {
    method: "GET",
    path: "/api/apps",
    tag: "apps",
    summary: "Your apps, newest first",
    document: `query Apps { apps { ...AppFields } }`,
  },
  {
    method: "POST",
    path: "/api/apps",
    tag: "apps",
    summary: "Create an app (slug unique across the platform; counts against maxApps)",
    document: `mutation CreateApp($input: CreateAppInput!) { createApp(input: $input) { ... on App { ...AppFields } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "GET",
    path: "/api/apps/:slug",
    tag: "apps",
    summary: "An app with its env vars, databases and recent deployments",
    document: `query App($slug: String!) { app(slug: $slug) {
      ...AppFields env { key value } resources { ...ResourceFields } deployments { ...DeploymentFields } } }`,
  },
  {
    method: "PATCH",
    path: "/api/apps/:slug",
    tag: "apps",
    summary: "Edit an app's name, description, repository, branch, auto-deploy, previews or instances",
    document: `mutation UpdateApp($slug: String!, $input: UpdateAppInput!) {
      updateApp(slug: $slug, input: $input) { ... on App { ...AppFields } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "DELETE",
    path: "/api/apps/:slug",
    tag: "apps",
    summary: "Stop and delete an app with its releases, env vars, logs and databases",
    document: `mutation DeleteApp($slug: String!) { deleteApp(slug: $slug) }`,
    status: 204,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/deploy",
    tag: "deploys",
    summary: "Deploy from GitHub: the app's repo and branch, or `{repo?, branch?, commit?}`; answers at once with the queued deployment",
    document: `mutation DeployRepo($slug: String!, $input: DeployRepoInput) {
      deployRepo(slug: $slug, input: $input) { ... on Deployment { ...DeploymentFields } ...ErrorFields } }`,
    input: "input",
    status: 202,
  },
  {
    method: "PUT",
    path: "/api/apps/:slug/deploy",
    tag: "deploys",
    summary: "Deploy a zip (multipart/form-data, part `file`); answers at once with the queued deployment",
    document: `mutation DeployUpload($slug: String!, $upload: ID!) {
      deployUpload(slug: $slug, upload: $upload) { ... on Deployment { ...DeploymentFields } ...ErrorFields } }`,
    upload: "upload",
    status: 202,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/rollback",
    tag: "deploys",
    summary: "Start a kept release again without building (default: the one before the live one)",
    document: `mutation Rollback($slug: String!, $input: RollbackInput) {
      rollback(slug: $slug, input: $input) { ... on Deployment { ...DeploymentFields } ...ErrorFields } }`,
    input: "input",
    status: 202,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/deployments/:id/cancel",
    tag: "deploys",
    summary: "Cancel a queued or running deployment; the previous release keeps serving",
    document: `mutation CancelDeployment($slug: String!, $id: ID!) {
      cancelDeployment(slug: $slug, id: $id) { ... on Deployment { ...DeploymentFields } ...ErrorFields } }`,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/stop",
    tag: "apps",
    summary: "Stop the app (status STOPPED) until it is restarted or deployed",
    document: `mutation StopApp($slug: String!) { stopApp(slug: $slug) { ...AppFields } }`,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/restart",
    tag: "apps",
    summary: "Start the live release again (409 when the app was never deployed)",
    document: `mutation RestartApp($slug: String!) { restartApp(slug: $slug) { ... on App { ...AppFields } ...ErrorFields } }`,
  },
  {
    method: "GET",
    path: "/api/apps/:slug/logs",
    tag: "logs",
    summary: "Build or runtime log lines, oldest first: the newest `limit`, or those after `after`",
    document: `query AppLogs($slug: String!, $kind: LogKind, $after: String, $limit: Int, $deployment: ID) {
      appLogs(slug: $slug, kind: $kind, after: $after, limit: $limit, deployment: $deployment) { ...LogLineFields } }`,
    variables: ({ params, query }) => ({
      slug: params.slug,
      kind: query.kind,
      after: query.after,
      limit: query.limit === undefined ? undefined : Number(query.limit),
      deployment: query.deployment,
    }),
  },
  {
    method: "GET",
    path: "/api/apps/:slug/env",
    tag: "env",
    summary: "The app's environment variables, sorted by key",
    document: `query AppEnv($slug: String!) { appEnv(slug: $slug) { key value } }`,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/env",
    tag: "env",
    summary: "Set variables from a JSON object; answers the whole set; a running app restarts with them",
    document: `mutation SetEnv($slug: String!, $vars: EnvVars!) { setEnv(slug: $slug, vars: $vars) { key value } }`,
    input: "vars",
  },
  {
    method: "DELETE",
    path: "/api/apps/:slug/env",
    tag: "env",
    summary: "Remove the variable named by `key`; a running app restarts without it",
    document: `mutation UnsetEnv($slug: String!, $key: String!) { unsetEnv(slug: $slug, key: $key) }`,
    variables: ({ params, query }) => ({ slug: params.slug, key: query.key }),
    status: 204,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/resources",
    tag: "databases",
    summary: "Provision a database (`{type?: postgres|sqlite, name?}`); its URL becomes the env var `envKey` and a running app restarts with it",
    document: `mutation CreateResource($slug: String!, $input: CreateResourceInput) {
      createResource(slug: $slug, input: $input) { ... on Resource { ...ResourceFields } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "GET",
    path: "/api/apps/:slug/domains",
    tag: "domains",
    summary: "The app's custom domains, oldest first, with the DNS record to create and the verification state",
    document: `query AppDomains($slug: String!) { appDomains(slug: $slug) { ...DomainFields } }`,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/domains",
    tag: "domains",
    summary: "Claim a hostname `{hostname}` for the app; it is routed once verified (409 when another app holds it)",
    document: `mutation AddDomain($slug: String!, $input: AddDomainInput!) {
      addDomain(slug: $slug, input: $input) { ... on Domain { ...DomainFields } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "DELETE",
    path: "/api/resources/:id",
    tag: "databases",
    summary: "Drop the database for real, with its backups; its env var is removed and a running app restarts",
    document: `mutation DeleteResource($id: ID!) { deleteResource(id: $id) }`,
    status: 204,
  },
  {
    method: "GET",
    path: "/api/resources/:id/backups",
    tag: "databases",
    summary: "The database's backups (size in bytes, time, trigger), newest first",
    document: `query ResourceBackups($id: ID!) { resourceBackups(id: $id) { ...BackupFields } }`,
  },
  {
    method: "POST",
    path: "/api/resources/:id/backups",
    tag: "databases",
    summary: "Back the database up now",
    document: `mutation BackupResource($id: ID!) { backupResource(id: $id) { ... on Backup { ...BackupFields } ...ErrorFields } }`,
    status: 201,
  },
  {
    method: "POST",
    path: "/api/resources/:id/backups/:backupId/restore",
    tag: "databases",
    summary: "Put the backup's content back into the same database; the app is stopped meanwhile and started again",
    document: `mutation RestoreBackup($id: ID!, $backupId: ID!) {
      restoreBackup(id: $id, backupId: $backupId) { ... on Backup { ...BackupFields } ...ErrorFields } }`,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/domains/:hostname/verify",
    tag: "domains",
    summary: "Check the domain's challenges now: the HTTP token through the hostname, or the TXT record (409 naming why when neither passes)",
    document: `mutation VerifyDomain($slug: String!, $hostname: String!) {
      verifyDomain(slug: $slug, hostname: $hostname) { ... on Domain { ...DomainFields } ...ErrorFields } }`,
  },
  {
    method: "DELETE",
    path: "/api/apps/:slug/domains/:hostname",
    tag: "domains",
    summary: "Stop routing the hostname to the app and release it",
    document: `mutation RemoveDomain($slug: String!, $hostname: String!) { removeDomain(slug: $slug, hostname: $hostname) }`,
    status: 204,
  },
];
