// Account self-service: the profile (name, email), the password, the sessions and deleting the account.
// Each function runs one mutation, says how it went (a toast, or a Problem for the form to show) and, on
// success, reloads the account page's data.
import { invalidate } from "$app/navigation";
import { graphql } from "$lib/gql";
import { graphqlClient, resetGraphqlClient } from "$lib/graphql/client";
import { SESSION_DEPENDENCY } from "$lib/navigation";
import { problemFrom } from "./errors";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

/** The account page's load depends on this; every successful change here reloads it. */
export const ACCOUNT_DEPENDENCY = "app:account";

export type { Outcome };

const UpdateAccountMutation = graphql(`
  mutation UpdateAccount($input: UpdateAccountInput!) {
    updateAccount(input: $input) {
      __typename
      ... on User {
        name
        email
      }
      ...ErrorFields
    }
  }
`);

const ChangePasswordMutation = graphql(`
  mutation ChangePassword($input: ChangePasswordInput!) {
    changePassword(input: $input) {
      __typename
      ... on PasswordChanged {
        signedOutSessions
      }
      ...ErrorFields
    }
  }
`);

const RevokeSessionMutation = graphql(`
  mutation RevokeSession($id: ID!) {
    revokeSession(id: $id)
  }
`);

const RevokeOtherSessionsMutation = graphql(`
  mutation RevokeOtherSessions {
    revokeOtherSessions
  }
`);

const DeleteAccountMutation = graphql(`
  mutation DeleteAccount($input: DeleteAccountInput!) {
    deleteAccount(input: $input)
  }
`);

const refresh = () => Promise.all([invalidate(ACCOUNT_DEPENDENCY), invalidate(SESSION_DEPENDENCY)]);

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** Saves a new name and/or email (the current password is needed for the email). */
export async function updateProfile(input: { name?: string; email?: string; currentPassword?: string }): Promise<Outcome> {
  const updated = await mutate(UpdateAccountMutation, { input }, "updateAccount", ["User"]);
  if (!updated.ok) return failed(updated.problem);
  const emailChanged = input.email !== undefined;
  toast.success(emailChanged ? `Saved. Confirm ${updated.value.email} with the link we just mailed there.` : "Saved your profile.");
  await refresh();
  return done;
}

export async function changePassword(input: { currentPassword: string; newPassword: string }): Promise<Outcome> {
  const changed = await mutate(ChangePasswordMutation, { input }, "changePassword", ["PasswordChanged"]);
  if (!changed.ok) return failed(changed.problem);
  const others = changed.value.signedOutSessions;
  toast.success(`Your password is changed${others ? `; ${plural(others, "other session")} signed out` : ""}.`);
  await refresh();
  return done;
}

export async function revokeSession(session: { id: string; device: string }): Promise<Outcome> {
  const result = await graphqlClient().mutation(RevokeSessionMutation, { id: session.id }).toPromise();
  if (!result.data?.revokeSession) return failed(problemFrom(result.error), `Could not sign out ${session.device}.`);
  toast.success(`Signed out ${session.device}.`);
  await refresh();
  return done;
}

export async function revokeOtherSessions(): Promise<Outcome> {
  const result = await graphqlClient().mutation(RevokeOtherSessionsMutation, {}).toPromise();
  if (result.data?.revokeOtherSessions == null) return failed(problemFrom(result.error), "Could not sign out the other sessions.");
  toast.success(`Signed out ${plural(result.data.revokeOtherSessions, "other session")}.`);
  await refresh();
  return done;
}

/** Deletes the account for good; the caller then leaves for the sign-in page. */
export async function deleteAccount(confirm: string): Promise<Outcome> {
  const result = await graphqlClient().mutation(DeleteAccountMutation, { input: { confirm } }).toPromise();
  if (!result.data?.deleteAccount) return failed(problemFrom(result.error), "Could not delete your account.");
  resetGraphqlClient();
  toast.success("Your account and everything in it are deleted.");
  return done;
}
