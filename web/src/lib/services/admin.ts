// The admin console's actions: change an account's role, status or quota, answer approvals and limit
// requests. Each runs one mutation and says how it went (a toast, or a Problem for the form).
import { graphql } from "$lib/gql";
import type { QuotaDecision, QuotaLimitsInput, UpdateUserInput } from "$lib/gql/graphql";
import { failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

const UpdateUser = graphql(`
  mutation AdminUpdateUser($id: ID!, $input: UpdateUserInput!) {
    updateUser(id: $id, input: $input) {
      __typename
      ... on User {
        id
        name
        role
        status
      }
      ...ErrorFields
    }
  }
`);

const DecideApproval = graphql(`
  mutation AdminDecideApproval($id: ID!, $input: ApprovalInput!) {
    decideApproval(id: $id, input: $input) {
      __typename
      ... on User {
        id
        name
        status
      }
      ...ErrorFields
    }
  }
`);

const DecideQuotaRequest = graphql(`
  mutation AdminDecideQuotaRequest($id: ID!, $input: QuotaDecisionInput!) {
    decideQuotaRequest(id: $id, input: $input) {
      __typename
      ... on QuotaRequest {
        id
        status
      }
      ...ErrorFields
    }
  }
`);

export async function updateUser(id: string, input: UpdateUserInput, success: string): Promise<Outcome> {
  const outcome = await mutate(UpdateUser, { id, input }, "updateUser", ["User"]);
  if (!outcome.ok) return failed(outcome.problem, "Could not change the account.");
  toast.success(success);
  return { ok: true, value: undefined };
}

export async function decideApproval(id: string, decision: "approve" | "reject"): Promise<Outcome> {
  const outcome = await mutate(DecideApproval, { id, input: { decision } }, "decideApproval", ["User"]);
  if (!outcome.ok) return failed(outcome.problem, "Could not decide.");
  toast.success(decision === "approve" ? `${outcome.value.name} is approved.` : `${outcome.value.name} is turned down.`);
  return { ok: true, value: undefined };
}

export async function decideQuotaRequest(id: string, decision: QuotaDecision, extra: { limits?: QuotaLimitsInput; reason?: string }): Promise<Outcome> {
  const outcome = await mutate(DecideQuotaRequest, { id, input: { decision, ...extra } }, "decideQuotaRequest", ["QuotaRequest"]);
  if (!outcome.ok) return outcome;
  toast.success(decision === "approve" ? "The request is approved: the new limits apply now." : "The request is denied.");
  return { ok: true, value: undefined };
}
