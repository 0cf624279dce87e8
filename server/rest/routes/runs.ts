// One-off runs of an app: start, list, read, cancel. Their output: GET /api/apps/:slug/logs?kind=run&run=<id>.
import type { RestRoute } from "../types.ts";

export const runsRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/apps/:slug/runs",
    tag: "runs",
    summary:
      "Run `{command, timeoutSeconds?}` once in the app's live release (as /bin/sh -c inside its sandbox, with its env vars; timeout 1–86400 s, default 3600); answers once it runs. 409 without a live release; 403 quota_exceeded past maxInstances (the app's instances and its runs together)",
    document: `mutation StartRun($slug: String!, $input: StartRunInput!) { startRun(slug: $slug, input: $input) { ... on Run { ...RunFields } ...ErrorFields } }`,
    input: "input",
    status: 202,
  },
  {
    method: "GET",
    path: "/api/apps/:slug/runs",
    tag: "runs",
    summary: "The app's runs, newest first, 50 at a time (`after`: the last id)",
    document: `query AppRuns($slug: String!, $after: String) { appRuns(slug: $slug, after: $after) { ...RunFields } }`,
    variables: ({ params, query }) => ({ slug: params.slug, after: query.after }),
  },
  {
    method: "GET",
    path: "/api/apps/:slug/runs/:id",
    tag: "runs",
    summary: "One run: its status, exit code and times",
    document: `query AppRun($slug: String!, $id: ID!) { appRun(slug: $slug, id: $id) { ...RunFields } }`,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/runs/:id/cancel",
    tag: "runs",
    summary: "Kill a run with every process it started (CANCELED); 409 once it has finished",
    document: `mutation CancelRun($slug: String!, $id: ID!) { cancelRun(slug: $slug, id: $id) { ... on Run { ...RunFields } ...ErrorFields } }`,
  },
];
