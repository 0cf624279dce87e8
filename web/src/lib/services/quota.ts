// Limit requests from the account page: ask for higher limits with a reason. The panel's live subscription
// shows the request and, later, the administrator's decision.
import { graphql } from "$lib/gql";
import type { QuotaLimitsInput } from "$lib/gql/graphql";
import { mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

const RequestQuota = graphql(`
  mutation RequestQuota($input: QuotaRequestInput!) {
    requestQuota(input: $input) {
      __typename
      ... on QuotaRequest {
        id
      }
      ...ErrorFields
    }
  }
`);

export async function requestQuota(limits: QuotaLimitsInput, reason: string): Promise<Outcome<{ id: string }>> {
  const outcome = await mutate(RequestQuota, { input: { limits, reason } }, "requestQuota", ["QuotaRequest"]);
  if (outcome.ok) toast.success("Your request was sent to the administrators.");
  return outcome;
}
