// OAuth apps: registering, changing and deleting the clients you own, rotating their secrets, and withdrawing
// the access you gave third-party apps. Each function runs one mutation, says how it went (a toast, or a
// Problem for the form to show) and, on success, reloads the OAuth apps page's data.
import { goto, invalidate } from "$app/navigation";
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { problemFrom } from "./errors";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

/** The OAuth apps page's load depends on this; every successful change here reloads it. */
export const OAUTH_APPS_DEPENDENCY = "app:oauth-apps";

export type { Outcome };

/** A client secret as the server answers it: once, right after it is created or replaced. */
export interface RevealedSecret {
  clientId: string;
  name: string;
  clientSecret: string;
  rotated: boolean;
}

export interface OAuthClientValues {
  name: string;
  description: string;
  homepageUrl: string;
  /** "" for none; absent to leave it as it is. */
  logoFileId?: string;
  redirectUris: string[];
}

const CreateMutation = graphql(`
  mutation CreateOAuthClient($input: CreateOAuthClientInput!) {
    createOAuthClient(input: $input) {
      __typename
      ... on OAuthClient {
        clientId
        name
      }
      ... on OAuthClientWithSecret {
        clientId
        name
        clientSecret
      }
      ...ErrorFields
    }
  }
`);

const UpdateMutation = graphql(`
  mutation UpdateOAuthClient($clientId: String!, $input: UpdateOAuthClientInput!) {
    updateOAuthClient(clientId: $clientId, input: $input) {
      __typename
      ... on OAuthClient {
        name
      }
      ...ErrorFields
    }
  }
`);

const DeleteMutation = graphql(`
  mutation DeleteOAuthClient($clientId: String!) {
    deleteOAuthClient(clientId: $clientId) {
      __typename
      ... on OAuthClient {
        name
      }
      ...ErrorFields
    }
  }
`);

const RotateMutation = graphql(`
  mutation RotateOAuthClientSecret($clientId: String!) {
    rotateOAuthClientSecret(clientId: $clientId) {
      __typename
      ... on OAuthClientWithSecret {
        clientId
        name
        clientSecret
      }
      ...ErrorFields
    }
  }
`);

const DeleteSecretMutation = graphql(`
  mutation DeleteOAuthClientSecret($clientId: String!, $secretId: String!) {
    deleteOAuthClientSecret(clientId: $clientId, secretId: $secretId) {
      __typename
      ... on OAuthClientSecret {
        lastFour
      }
      ...ErrorFields
    }
  }
`);

const RevokeMutation = graphql(`
  mutation RevokeAuthorizedApp($clientId: String!) {
    revokeAuthorizedApp(clientId: $clientId)
  }
`);

const refresh = () => invalidate(OAUTH_APPS_DEPENDENCY);

/** The secret comes back for a confidential client only; a public one has none. */
export async function registerClient(input: OAuthClientValues & { public: boolean }): Promise<Outcome<RevealedSecret | null>> {
  const created = await mutate(CreateMutation, { input }, "createOAuthClient", ["OAuthClient", "OAuthClientWithSecret"]);
  if (!created.ok) return failed(created.problem);
  const client = created.value;
  toast.success(`Registered ${client.name}.`);
  await refresh();
  const secret = client.__typename === "OAuthClientWithSecret" ? client.clientSecret : null;
  return { ok: true, value: secret ? { clientId: client.clientId, name: client.name, clientSecret: secret, rotated: false } : null };
}

export async function updateClient(clientId: string, input: OAuthClientValues): Promise<Outcome> {
  const updated = await mutate(UpdateMutation, { clientId, input }, "updateOAuthClient", ["OAuthClient"]);
  if (!updated.ok) return failed(updated.problem);
  toast.success(`Saved ${updated.value.name}.`);
  await refresh();
  return done;
}

/** From the app's own page (`leaving`), the page is left instead of reloaded: it would only say "not found". */
export async function deleteClient(clientId: string, leaving?: string): Promise<Outcome> {
  const deleted = await mutate(DeleteMutation, { clientId }, "deleteOAuthClient", ["OAuthClient"]);
  if (!deleted.ok) return failed(deleted.problem, "Could not delete the app.");
  toast.success(`Deleted ${deleted.value.name}.`);
  await (leaving ? goto(leaving, { invalidateAll: true }) : refresh());
  return done;
}

export async function rotateSecret(clientId: string): Promise<Outcome<RevealedSecret>> {
  const rotated = await mutate(RotateMutation, { clientId }, "rotateOAuthClientSecret", ["OAuthClientWithSecret"]);
  if (!rotated.ok) return failed(rotated.problem, "Could not rotate the secret.");
  const client = rotated.value;
  toast.success(`${client.name} has a new secret. The older ones keep working until you delete them.`);
  await refresh();
  return { ok: true, value: { clientId: client.clientId, name: client.name, clientSecret: client.clientSecret, rotated: true } };
}

export async function deleteSecret(client: { clientId: string; name: string }, secretId: string): Promise<Outcome> {
  const deleted = await mutate(DeleteSecretMutation, { clientId: client.clientId, secretId }, "deleteOAuthClientSecret", ["OAuthClientSecret"]);
  if (!deleted.ok) return failed(deleted.problem, "Could not delete the secret.");
  toast.success(`Deleted a secret of ${client.name}: it no longer works.`);
  await refresh();
  return done;
}

export async function revokeApp(app: { clientId: string; name: string }): Promise<Outcome> {
  const result = await graphqlClient().mutation(RevokeMutation, { clientId: app.clientId }).toPromise();
  if (!result.data) return failed(problemFrom(result.error), `Could not revoke access for ${app.name}.`);
  toast.success(`${app.name} can no longer use your account.`);
  await refresh();
  return done;
}
