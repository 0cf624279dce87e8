// Sign-up, sign-in and sign-out: the mutations, the session reset that follows them and their notices.
import { graphql } from "$lib/gql";
import { graphqlClient, resetGraphqlClient } from "$lib/graphql/client";
import { problemFrom } from "./errors";
import { done, failed, mutate, type Outcome } from "./mutate";
import { clearToasts, toast } from "./toast.svelte";

export type { Outcome };

const SignupMutation = graphql(`
  mutation Signup($input: SignupInput!) {
    signup(input: $input) {
      __typename
      ... on AuthPayload {
        user {
          id
          name
        }
      }
      ...ErrorFields
    }
  }
`);

const LoginMutation = graphql(`
  mutation Login($input: LoginInput!) {
    login(input: $input) {
      __typename
      ... on AuthPayload {
        user {
          id
          name
        }
      }
      ...ErrorFields
    }
  }
`);

const LogoutMutation = graphql(`
  mutation Logout {
    logout
  }
`);

export async function signup(input: { email: string; name: string; password: string }): Promise<Outcome> {
  const signedUp = await mutate(SignupMutation, { input }, "signup", ["AuthPayload"]);
  if (!signedUp.ok) return signedUp;
  resetGraphqlClient();
  toast.success(`Welcome to Slipway, ${signedUp.value.user.name}.`);
  return done;
}

export async function login(input: { email: string; password: string }): Promise<Outcome> {
  const signedIn = await mutate(LoginMutation, { input }, "login", ["AuthPayload"]);
  if (!signedIn.ok) return signedIn;
  resetGraphqlClient();
  toast.success(`Signed in as ${signedIn.value.user.name}.`);
  return done;
}

export async function logout(): Promise<Outcome> {
  const result = await graphqlClient().mutation(LogoutMutation, {}).toPromise();
  if (!result.data?.logout) return failed(problemFrom(result.error), "Could not sign out.");
  resetGraphqlClient();
  clearToasts();
  toast.success("You are signed out.");
  return done;
}
