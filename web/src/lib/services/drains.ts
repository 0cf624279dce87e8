// Log drains of an app: list, add, remove. Each function runs one operation and says how it went (a toast, or a
// Problem for the panel to show); the panel reloads its list after each change.
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { problemFrom } from "./errors";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

export const DrainRow = graphql(`
  fragment DrainRow on LogDrain {
    id
    url
    sent
    dropped
    lastError
    lastErrorAt
    createdAt
  }
`);

const DrainsQuery = graphql(`
  query AppDrains($slug: String!) {
    appDrains(slug: $slug) {
      ...DrainRow
    }
  }
`);

const AddMutation = graphql(`
  mutation AddLogDrain($slug: String!, $input: AddLogDrainInput!) {
    addLogDrain(slug: $slug, input: $input) {
      __typename
      ... on LogDrain {
        id
        url
      }
      ...ErrorFields
    }
  }
`);

const RemoveMutation = graphql(`
  mutation RemoveLogDrain($slug: String!, $id: ID!) {
    removeLogDrain(slug: $slug, id: $id)
  }
`);

export async function loadDrains(slug: string) {
  const result = await graphqlClient().query(DrainsQuery, { slug }, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) return failed<never>(problemFrom(result.error));
  return { ok: true as const, value: result.data.appDrains };
}

export async function addDrain(slug: string, url: string): Promise<Outcome> {
  const outcome = await mutate(AddMutation, { slug, input: { url } }, "addLogDrain", ["LogDrain"]);
  if (!outcome.ok) return outcome;
  toast.success(`The app's log lines now go to ${outcome.value.url}.`);
  return done;
}

export async function removeDrain(slug: string, id: string, url: string): Promise<Outcome> {
  const result = await graphqlClient().mutation(RemoveMutation, { slug, id }).toPromise();
  if (!result.data) return failed(problemFrom(result.error), `Could not remove the drain to ${url}.`);
  toast.success(`Removed the drain to ${url}.`);
  return done;
}
