// An app's process types (web, worker, clock, …): scaling one. It answers how it went (a toast, or a Problem for
// the panel to show beside that type); the app page's subscription shows the instances start and stop.
import { graphql } from "$lib/gql";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

const ScaleMutation = graphql(`
  mutation ScaleProcesses($slug: String!, $formation: Formation!) {
    scaleProcesses(slug: $slug, formation: $formation) {
      __typename
      ... on MutationScaleProcessesSuccess {
        data {
          type
          quantity
        }
      }
      ...ErrorFields
    }
  }
`);

/** Runs `quantity` instances of one process type; the app's other types keep theirs. */
export async function scaleProcess(slug: string, type: string, quantity: number): Promise<Outcome> {
  const scaled = await mutate(ScaleMutation, { slug, formation: { [type]: quantity } }, "scaleProcesses", ["MutationScaleProcessesSuccess"]);
  if (!scaled.ok) return failed(scaled.problem);
  toast.success(quantity === 0 ? `Stopping ${slug}'s ${type} instances.` : `Scaling ${slug}'s ${type} to ${quantity} instance${quantity === 1 ? "" : "s"}.`);
  return done;
}
