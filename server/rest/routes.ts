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
      ...AppFields env { key value } resources { id type name envKey createdAt } deployments { ...DeploymentFields } } }`,
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
];
