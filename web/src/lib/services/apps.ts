// Apps: creating, deploying (the zip goes to the REST upload route, for its progress), rolling back,
// canceling, stopping, restarting and deleting them, and their environment variables. Each function runs
// one operation, says how it went (a toast, or a Problem for the form to show) and, where the live
// subscriptions do not carry the change, reloads the page's data.
import { invalidate } from "$app/navigation";
import { formatBytes } from "$lib/format";
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { problemFrom, problemFromRest } from "./errors";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

/** The apps page's load depends on this. */
export const APPS_DEPENDENCY = "app:apps";
/** An app's page load depends on this; env changes reload it. */
export const APP_DEPENDENCY = "app:app";

export type { Outcome };

export interface NewApp {
  slug: string;
  name: string;
  description: string;
}

const CreateMutation = graphql(`
  mutation CreateApp($input: CreateAppInput!) {
    createApp(input: $input) {
      __typename
      ... on App {
        slug
        name
      }
      ...ErrorFields
    }
  }
`);

const DeleteMutation = graphql(`
  mutation DeleteApp($slug: String!) {
    deleteApp(slug: $slug)
  }
`);

const StopMutation = graphql(`
  mutation StopApp($slug: String!) {
    stopApp(slug: $slug) {
      slug
      status
    }
  }
`);

const RestartMutation = graphql(`
  mutation RestartApp($slug: String!) {
    restartApp(slug: $slug) {
      __typename
      ... on App {
        slug
        status
      }
      ...ErrorFields
    }
  }
`);

const RollbackMutation = graphql(`
  mutation Rollback($slug: String!, $input: RollbackInput) {
    rollback(slug: $slug, input: $input) {
      __typename
      ... on Deployment {
        id
      }
      ...ErrorFields
    }
  }
`);

const CancelMutation = graphql(`
  mutation CancelDeployment($slug: String!, $id: ID!) {
    cancelDeployment(slug: $slug, id: $id) {
      __typename
      ... on Deployment {
        id
      }
      ...ErrorFields
    }
  }
`);

const UpdateDetailsMutation = graphql(`
  mutation UpdateAppDetails($slug: String!, $input: UpdateAppInput!) {
    updateApp(slug: $slug, input: $input) {
      __typename
      ... on App {
        slug
        name
        description
      }
      ...ErrorFields
    }
  }
`);

const UpdateHealthCheckMutation = graphql(`
  mutation UpdateAppHealthCheck($slug: String!, $input: UpdateAppInput!) {
    updateApp(slug: $slug, input: $input) {
      __typename
      ... on App {
        slug
        ...HealthCheckForm_app
      }
      ...ErrorFields
    }
  }
`);

const SetEnvMutation = graphql(`
  mutation SetEnv($slug: String!, $vars: EnvVars!) {
    setEnv(slug: $slug, vars: $vars) {
      key
    }
  }
`);

const UnsetEnvMutation = graphql(`
  mutation UnsetEnv($slug: String!, $key: String!) {
    unsetEnv(slug: $slug, key: $key)
  }
`);

export async function createApp(input: NewApp): Promise<Outcome<{ slug: string }>> {
  const values = { slug: input.slug.trim(), name: input.name.trim() || null, description: input.description.trim() || null };
  const created = await mutate(CreateMutation, { input: values }, "createApp", ["App"]);
  if (!created.ok) return failed(created.problem);
  toast.success(`Created ${created.value.name}. Deploy it by uploading a zip.`);
  await invalidate(APPS_DEPENDENCY);
  return { ok: true, value: { slug: created.value.slug } };
}

/** Renames the app or changes its description (an empty description removes it). */
export async function updateAppDetails(slug: string, details: { name: string; description: string }): Promise<Outcome> {
  const input = { name: details.name.trim(), description: details.description.trim() };
  const updated = await mutate(UpdateDetailsMutation, { slug, input }, "updateApp", ["App"]);
  if (!updated.ok) return failed(updated.problem);
  toast.success(`Saved ${slug}'s details.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}

/** Sets the app's own health check, or with null drops it (its app.json's, or the default, applies). */
export async function updateHealthCheck(slug: string, healthcheck: { path: string | null; intervalSeconds: number; timeoutSeconds: number } | null): Promise<Outcome> {
  const updated = await mutate(UpdateHealthCheckMutation, { slug, input: { healthcheck } }, "updateApp", ["App"]);
  if (!updated.ok) return failed(updated.problem);
  toast.success(healthcheck ? `Saved ${slug}'s health check.` : `${slug} uses its app.json's health check, or the default.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}

const UpdateSleepMutation = graphql(`
  mutation UpdateAppSleep($slug: String!, $input: UpdateAppInput!) {
    updateApp(slug: $slug, input: $input) {
      __typename
      ... on App {
        slug
        ...SleepForm_app
      }
      ...ErrorFields
    }
  }
`);

/** `minutes` null: the app never sleeps. */
export async function updateSleep(slug: string, minutes: number | null, workers: boolean): Promise<Outcome> {
  const updated = await mutate(UpdateSleepMutation, { slug, input: { sleepAfterMinutes: minutes, sleepWorkers: workers } }, "updateApp", ["App"]);
  if (!updated.ok) return failed(updated.problem);
  toast.success(minutes === null ? `${slug} never sleeps.` : `${slug} sleeps after ${minutes} minute${minutes === 1 ? "" : "s"} without a request.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}

export async function deleteApp(slug: string): Promise<Outcome> {
  const result = await graphqlClient().mutation(DeleteMutation, { slug }).toPromise();
  if (!result.data?.deleteApp) return failed(problemFrom(result.error), `Could not delete ${slug}.`);
  toast.success(`Deleted ${slug}.`);
  return done;
}

export async function stopApp(slug: string): Promise<Outcome> {
  const result = await graphqlClient().mutation(StopMutation, { slug }).toPromise();
  if (!result.data) return failed(problemFrom(result.error), `Could not stop ${slug}.`);
  toast.success(`Stopped ${slug}.`);
  return done;
}

export async function restartApp(slug: string): Promise<Outcome> {
  const restarted = await mutate(RestartMutation, { slug }, "restartApp", ["App"]);
  if (!restarted.ok) return failed(restarted.problem, `Could not restart ${slug}.`);
  toast.success(`Restarted ${slug}.`);
  return done;
}

export async function rollback(slug: string, deployment: string): Promise<Outcome<{ id: string }>> {
  const started = await mutate(RollbackMutation, { slug, input: { deployment } }, "rollback", ["Deployment"]);
  if (!started.ok) return failed(started.problem, "Could not roll back.");
  return { ok: true, value: { id: started.value.id } };
}

export async function cancelDeployment(slug: string, id: string): Promise<Outcome> {
  const canceled = await mutate(CancelMutation, { slug, id }, "cancelDeployment", ["Deployment"]);
  if (!canceled.ok) return failed(canceled.problem, "Could not cancel the deployment.");
  toast.success("Canceled the deployment; the previous release keeps serving.");
  return done;
}

/** Adds or replaces variables; a Problem names the keys the server refused (fields by key). */
export async function setEnv(slug: string, vars: Record<string, string>): Promise<Outcome> {
  const result = await graphqlClient().mutation(SetEnvMutation, { slug, vars }).toPromise();
  if (!result.data) return failed(problemFrom(result.error));
  const count = Object.keys(vars).length;
  toast.success(`Saved ${count === 1 ? Object.keys(vars)[0] : `${count} variables`}. A running app restarts with them.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}

export async function unsetEnv(slug: string, key: string): Promise<Outcome> {
  const result = await graphqlClient().mutation(UnsetEnvMutation, { slug, key }).toPromise();
  if (!result.data) return failed(problemFrom(result.error), `Could not remove ${key}.`);
  toast.success(`Removed ${key}. A running app restarts without it.`);
  await invalidate(APP_DEPENDENCY);
  return done;
}

/**
 * Uploads a zip to `PUT /api/apps/:slug/deploy` (GraphQL over HTTP cannot stream an upload; the route runs
 * the deployUpload mutation), reporting progress from 0 to 1. Answers the queued deployment's id; the app
 * page's toast tells how it ends.
 */
export function deployZip(slug: string, file: File, maxBytes: number, onprogress: (fraction: number) => void): Promise<Outcome<{ id: string }>> {
  const refuse = (message: string) => Promise.resolve(failed<{ id: string }>({ code: "invalid_request", message, fields: {} }));
  if (!/\.zip$/i.test(file.name)) return refuse(`${file.name} is not a .zip file. Zip your app's folder and choose the zip.`);
  if (file.size > maxBytes) return refuse(`${file.name} is ${formatBytes(file.size)}, more than your upload limit of ${formatBytes(maxBytes)}.`);
  const body = new FormData();
  body.append("file", file, file.name);
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", `/api/apps/${encodeURIComponent(slug)}/deploy`);
    xhr.responseType = "json";
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onprogress(event.loaded / event.total);
    };
    xhr.onload = () => {
      if (xhr.status === 202 && typeof xhr.response?.id === "string") {
        onprogress(1);
        resolve({ ok: true, value: { id: xhr.response.id } });
      } else {
        resolve(failed(problemFromRest(xhr.response)));
      }
    };
    xhr.onerror = () => resolve(failed(problemFrom({ code: "network", message: "" })));
    xhr.send(body);
  });
}
