// Apps, their deployments, logs and env vars.
import type { RestRoute } from "../types.ts";

export const appsRoutes: RestRoute[] = [
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
      ...AppFields ...AppHealthFields env { key value } resources { ...ResourceFields } deployments { ...DeploymentFields }
      processes { ...ProcessFields } } }`,
  },
  {
    method: "PATCH",
    path: "/api/apps/:slug",
    tag: "apps",
    summary: "Edit an app's name, description, repository, branch, auto-deploy, previews, instances or health check (`healthcheck`: an object, or null to clear it)",
    document: `mutation UpdateApp($slug: String!, $input: UpdateAppInput!) {
      updateApp(slug: $slug, input: $input) { ... on App { ...AppFields ...AppHealthFields } ...ErrorFields } }`,
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
    summary: "Build, runtime or run log lines, oldest first: the newest `limit`, or those after `after`; `deployment` for a build's, `run` for a run's (default: the latest)",
    document: `query AppLogs($slug: String!, $kind: LogKind, $after: String, $limit: Int, $deployment: ID, $run: ID) {
      appLogs(slug: $slug, kind: $kind, after: $after, limit: $limit, deployment: $deployment, run: $run) { ...LogLineFields } }`,
    variables: ({ params, query }) => ({
      slug: params.slug,
      kind: query.kind,
      after: query.after,
      limit: query.limit === undefined ? undefined : Number(query.limit),
      deployment: query.deployment,
      run: query.run,
    }),
  },
  {
    method: "GET",
    path: "/api/apps/:slug/metrics",
    tag: "metrics",
    summary:
      "CPU (cores), memory (bytes), requests, 5xx and latency p50/p95 (ms) per `step` from `from` to `to` (ISO 8601; default the last hour), each series [time, value] pairs, and cpu and memory by process type; 400 past METRICS_RETENTION_DAYS or over 1000 points",
    document: `query AppMetrics($slug: String!, $from: String, $to: String, $step: String) {
      appMetrics(slug: $slug, from: $from, to: $to, step: $step) { ... on AppMetrics { from to step series { cpu memory memoryLimit requests errors latencyP50 latencyP95 } byProcess } ...ErrorFields } }`,
    variables: ({ params, query }) => ({ slug: params.slug, from: query.from, to: query.to, step: query.step }),
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
