// An app's databases: provisioning, revealing the connection URL, deleting, backing up now and restoring a
// backup. Each function runs one operation, says how it went (a toast, or a Problem for the form) and
// reloads the app page's data. Also the further pages of a database's backups.
import { invalidate } from "$app/navigation";
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { APP_DEPENDENCY } from "./apps";
import { problemFrom } from "./errors";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

const CreateMutation = graphql(`
  mutation CreateDatabase($slug: String!, $input: CreateResourceInput) {
    createResource(slug: $slug, input: $input) {
      __typename
      ... on Resource {
        id
        envKey
      }
      ...ErrorFields
    }
  }
`);

const DeleteMutation = graphql(`
  mutation DeleteDatabase($id: ID!) {
    deleteResource(id: $id)
  }
`);

const RevealQuery = graphql(`
  query RevealDatabaseUrl($id: ID!) {
    revealResourceUrl(id: $id)
  }
`);

const BackupsPageQuery = graphql(`
  query DatabaseBackupsPage($id: ID!, $after: String!) {
    resourceBackups(id: $id, after: $after, first: 10) {
      id
      ...BackupList_backup
    }
  }
`);

const BackupMutation = graphql(`
  mutation BackupDatabase($id: ID!) {
    backupResource(id: $id) {
      __typename
      ... on Backup {
        id
      }
      ...ErrorFields
    }
  }
`);

const RestoreMutation = graphql(`
  mutation RestoreDatabase($id: ID!, $backupId: ID!) {
    restoreBackup(id: $id, backupId: $backupId) {
      __typename
      ... on Backup {
        id
      }
      ...ErrorFields
    }
  }
`);

export async function createDatabase(slug: string, input: { type: string | null; name: string | null }): Promise<Outcome> {
  const created = await mutate(CreateMutation, { slug, input }, "createResource", ["Resource"]);
  if (!created.ok) return failed(created.problem);
  toast.success(`Created the database; the app reads its URL from ${created.value.envKey} and restarts with it.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}

export async function deleteDatabase(id: string, name: string): Promise<Outcome> {
  const result = await graphqlClient().mutation(DeleteMutation, { id }).toPromise();
  if (!result.data?.deleteResource) return failed(problemFrom(result.error), `Could not delete ${name}.`);
  toast.success(`Deleted the database ${name} and its backups.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}

/** The connection URL (with its password), fetched only when asked for. */
export async function revealDatabaseUrl(id: string): Promise<Outcome<string>> {
  const result = await graphqlClient().query(RevealQuery, { id }, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) return failed(problemFrom(result.error), "Could not show the URL.");
  return { ok: true, value: result.data.revealResourceUrl };
}

/** The page of backups after the one with the id `after`; null (and an error toast) when it cannot load. */
export async function backupsPage(id: string, after: string) {
  const result = await graphqlClient().query(BackupsPageQuery, { id, after }, { requestPolicy: "network-only" }).toPromise();
  if (result.data) return result.data.resourceBackups;
  failed(problemFrom(result.error), "Could not load more backups.");
  return null;
}

export async function backupDatabase(id: string, name: string): Promise<Outcome> {
  const made = await mutate(BackupMutation, { id }, "backupResource", ["Backup"]);
  if (!made.ok) return failed(made.problem, `Could not back up ${name}.`);
  toast.success(`Backed up ${name}.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}

export async function restoreDatabase(id: string, backupId: string, name: string): Promise<Outcome> {
  const restored = await mutate(RestoreMutation, { id, backupId }, "restoreBackup", ["Backup"]);
  if (!restored.ok) return failed(restored.problem, `Could not restore ${name}.`);
  toast.success(`Restored ${name}; the app started again.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}
