// One-off runs: starting one in the app's live release and canceling it. Each function runs one operation and
// says how it went (a toast, or a Problem for the form to show); the Runs tab's subscription carries the change.
import { graphql } from "$lib/gql";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

export interface NewRun {
  command: string;
  /** Null: the default (3600 s). */
  timeoutSeconds: number | null;
}

const StartMutation = graphql(`
  mutation StartRun($slug: String!, $input: StartRunInput!) {
    startRun(slug: $slug, input: $input) {
      __typename
      ... on Run {
        id
      }
      ...ErrorFields
    }
  }
`);

const CancelMutation = graphql(`
  mutation CancelRun($slug: String!, $id: ID!) {
    cancelRun(slug: $slug, id: $id) {
      __typename
      ... on Run {
        id
        status
      }
      ...ErrorFields
    }
  }
`);

const RunCronJobMutation = graphql(`
  mutation RunCronJob($slug: String!, $id: ID!) {
    runCronJob(slug: $slug, id: $id) {
      __typename
      ... on Run {
        id
      }
      ...ErrorFields
    }
  }
`);

/** Starts the run; the form shows a Problem (its fields: command, timeoutSeconds) in place. */
export async function startRun(slug: string, run: NewRun): Promise<Outcome<{ id: string }>> {
  const started = await mutate(StartMutation, { slug, input: run }, "startRun", ["Run"]);
  return started.ok ? started : failed(started.problem);
}

export async function cancelRun(slug: string, id: string): Promise<Outcome> {
  const canceled = await mutate(CancelMutation, { slug, id }, "cancelRun", ["Run"]);
  if (!canceled.ok) return failed(canceled.problem, "Could not cancel the run.");
  toast.success("Canceled the run: it was stopped with every process it started.");
  return done;
}

/** Runs a cron job now (a run of trigger cron); its id, for the page to show its output. */
export async function runCronJob(slug: string, id: string): Promise<Outcome<{ id: string }>> {
  const started = await mutate(RunCronJobMutation, { slug, id }, "runCronJob", ["Run"]);
  return started.ok ? started : failed(started.problem, "Could not run the cron job.");
}
