// One-off runs: starting one in the app's live release and canceling it. Each function runs one operation and
// says how it went (a toast, or a Problem for the form to show); the Runs tab's subscription carries the change.
import { graphql } from "$lib/gql";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

export interface NewRun {
  command: string;
  /** Null: the default (3600 s). */
  timeoutSeconds: number | null;
  /** On a terminal: the run waits (up to 60 s) for one to attach to its attachUrl. */
  interactive: boolean;
}

/** A started run; attachUrl only for an interactive one, whose terminal attaches there. */
export interface StartedRun {
  id: string;
  attachUrl: string | null;
}

/** The pty's size until the terminal, once fitted to the page, sends its own. */
export const INITIAL_TERMINAL = { cols: 100, rows: 30 };

const StartMutation = graphql(`
  mutation StartRun($slug: String!, $input: StartRunInput!) {
    startRun(slug: $slug, input: $input) {
      __typename
      ... on Run {
        id
        attachUrl
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

/**
 * Starts the run; the form shows a Problem (its fields: command, timeoutSeconds) in place, as it does the conflict
 * of a runtime that cannot attach a terminal.
 */
export async function startRun(slug: string, run: NewRun): Promise<Outcome<StartedRun>> {
  const { interactive, ...plain } = run;
  const input = interactive ? { ...plain, interactive, ...INITIAL_TERMINAL } : plain;
  const started = await mutate(StartMutation, { slug, input }, "startRun", ["Run"]);
  return started.ok ? { ok: true, value: { id: started.value.id, attachUrl: started.value.attachUrl ?? null } } : failed(started.problem);
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
