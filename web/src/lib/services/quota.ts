// Limit requests from the account page: ask for higher limits with a reason. The panel's live subscription
// shows the request and, later, the administrator's decision; older requests load a page at a time.
import { graphql } from "$lib/gql";
import type { QuotaLimitsInput } from "$lib/gql/graphql";
import { graphqlClient } from "$lib/graphql/client";
import { problemFrom } from "./errors";
import { failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

/** The page size: `quotaRequests(first: 10)` here and in QuotaPanel's subscription. */
export const QUOTA_REQUESTS_PAGE = 10;

const QuotaRequestsPageQuery = graphql(`
  query QuotaRequestsPage($after: String!) {
    quotaRequests(after: $after, first: 10) {
      id
      ...QuotaPanel_request
    }
  }
`);

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

/** The page of your requests after the one with the id `after`; null (and an error toast) when it cannot load. */
export async function quotaRequestsPage(after: string) {
  const result = await graphqlClient().query(QuotaRequestsPageQuery, { after }, { requestPolicy: "network-only" }).toPromise();
  if (result.data) return result.data.quotaRequests;
  failed(problemFrom(result.error), "Could not load more requests.");
  return null;
}
