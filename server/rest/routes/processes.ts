// An app's processes by type and its formation (how many instances of each type run).
import type { RestRoute } from "../types.ts";

export const processRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/apps/:slug/processes",
    tag: "processes",
    summary: "The live release's process types (web, then the Procfile's others), each with its command, quantity and instances as they run now",
    document: `query AppProcesses($slug: String!) { appProcesses(slug: $slug) { ...ProcessFields } }`,
  },
  {
    method: "PATCH",
    path: "/api/apps/:slug/formation",
    tag: "processes",
    summary:
      'Run this many instances of each named type, e.g. `{"web": 2, "worker": 1}` (others keep theirs): web at least 1, another type 0 to stop it. 400 for a type the live release lacks; 403 quota_exceeded past maxInstances (counted over every type). Answers the processes; instances start and stop in the background',
    document: `mutation ScaleProcesses($slug: String!, $formation: Formation!) { scaleProcesses(slug: $slug, formation: $formation) { ... on MutationScaleProcessesSuccess { __typename data { ...ProcessFields } } ...ErrorFields } }`,
    input: "formation",
  },
];
