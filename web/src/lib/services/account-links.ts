// Email verification and password reset: the mutations behind the links Slipway mails, and their notices.
import { graphql } from "$lib/gql";
import { graphqlClient, resetGraphqlClient } from "$lib/graphql/client";
import { problemFrom } from "./errors";
import { done, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

const VerifyEmailMutation = graphql(`
  mutation VerifyEmailLink($input: VerifyEmailInput!) {
    verifyEmail(input: $input) {
      __typename
      ... on UserPayload {
        user {
          id
          email
        }
      }
      ...ErrorFields
    }
  }
`);

const ResendMutation = graphql(`
  mutation ResendVerificationEmail {
    resendVerificationEmail {
      message
    }
  }
`);

const RequestResetMutation = graphql(`
  mutation RequestPasswordResetLink($input: PasswordResetRequestInput!) {
    requestPasswordReset(input: $input) {
      __typename
      ... on EmailSent {
        message
      }
      ...ErrorFields
    }
  }
`);

const ResetMutation = graphql(`
  mutation ResetPasswordFromLink($input: ResetPasswordInput!) {
    resetPassword(input: $input) {
      __typename
      ... on UserPayload {
        user {
          id
        }
      }
      ...ErrorFields
    }
  }
`);

/** Follows a verification link; the problem names the token when the link is no good. */
export async function verifyEmail(token: string): Promise<Outcome<{ email: string }>> {
  const verified = await mutate(VerifyEmailMutation, { input: { token } }, "verifyEmail", ["UserPayload"]);
  return verified.ok ? { ok: true, value: { email: verified.value.user.email } } : verified;
}

/** Mails the signed-in user a new verification link, and says so in a toast. */
export async function resendVerificationEmail(): Promise<void> {
  const result = await graphqlClient().mutation(ResendMutation, {}).toPromise();
  if (result.data) toast.success(result.data.resendVerificationEmail.message);
  else toast.error(`Could not send the verification email. ${problemFrom(result.error).message}`);
}

/** Asks for a reset link; the answer is the same whether or not an account uses the address. */
export async function requestPasswordReset(email: string): Promise<Outcome<{ message: string }>> {
  const sent = await mutate(RequestResetMutation, { input: { email } }, "requestPasswordReset", ["EmailSent"]);
  return sent.ok ? { ok: true, value: { message: sent.value.message } } : sent;
}

/** Sets the new password from a reset link; every session ends, so the user signs in again. */
export async function resetPassword(token: string, password: string): Promise<Outcome> {
  const reset = await mutate(ResetMutation, { input: { token, password } }, "resetPassword", ["UserPayload"]);
  if (!reset.ok) return reset;
  resetGraphqlClient();
  toast.success("Your password is changed, and every session signed out. Sign in with the new password.");
  return done;
}
