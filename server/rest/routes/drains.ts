// Log drains of apps.
import type { RestRoute } from "../types.ts";

export const drainsRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/apps/:slug/drains",
    tag: "drains",
    summary: "The app's log drains, oldest first, with the lines each sent and dropped and its last error",
    document: `query AppDrains($slug: String!) { appDrains(slug: $slug) { ...LogDrainFields } }`,
  },
  {
    method: "POST",
    path: "/api/apps/:slug/drains",
    tag: "drains",
    summary:
      "Forward the app's build, runtime and run lines to `{url}`: syslog://host:port or syslog+tls://host:port (RFC 5424, octet-counted) or https://… (batched JSON lines). 400 naming `url` for another scheme, credentials in it or a loopback, link-local or private address (unless OUTBOUND_ALLOWED_HOSTS lists it); 403 past 5 drains",
    document: `mutation AddLogDrain($slug: String!, $input: AddLogDrainInput!) {
      addLogDrain(slug: $slug, input: $input) { ... on LogDrain { ...LogDrainFields } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "DELETE",
    path: "/api/apps/:slug/drains/:id",
    tag: "drains",
    summary: "Stop forwarding the app's lines to the drain",
    document: `mutation RemoveLogDrain($slug: String!, $id: ID!) { removeLogDrain(slug: $slug, id: $id) }`,
    status: 204,
  },
];
