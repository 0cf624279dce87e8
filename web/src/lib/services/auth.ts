// Sign-up, sign-in and sign-out: the mutations, the session reset that follows them and their notices.
import { graphql } from "$lib/gql";
import { graphqlClient, resetGraphqlClient } from "$lib/graphql/client";
import { problemFrom, type Problem } from "./errors";
import { toast } from "./toast.svelte";

export type Outcome = { ok: true } | { ok: false; problem: Problem };

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
      ... on InvalidRequestError {
        code
        message
        fields {
          field
          message
        }
      }
      ... on ConflictError {
        code
        message
        fields {
          field
          message
        }
      }
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
      ... on InvalidRequestError {
        code
        message
        fields {
          field
          message
        }
      }
    }
  }
`);

const LogoutMutation = graphql(`
  mutation Logout {
    logout
  }
`);

export async function signup(input: { email: string; name: string; password: string }): Promise<Outcome> {
  const result = await graphqlClient().mutation(SignupMutation, { input }).toPromise();
  const answer = result.data?.signup;
  if (!answer) return { ok: false, problem: problemFrom(result.error) };
  if (answer.__typename !== "AuthPayload") return { ok: false, problem: problemFrom(answer) };
  resetGraphqlClient();
  toast.success(`Welcome to Slipway, ${answer.user.name}.`);
  return { ok: true };
}

export async function login(input: { email: string; password: string }): Promise<Outcome> {
  const result = await graphqlClient().mutation(LoginMutation, { input }).toPromise();
  const answer = result.data?.login;
  if (!answer) return { ok: false, problem: problemFrom(result.error) };
  if (answer.__typename !== "AuthPayload") return { ok: false, problem: problemFrom(answer) };
  resetGraphqlClient();
  toast.success(`Signed in as ${answer.user.name}.`);
  return { ok: true };
}

export async function logout(): Promise<Outcome> {
  const result = await graphqlClient().mutation(LogoutMutation, {}).toPromise();
  if (!result.data?.logout) {
    const problem = problemFrom(result.error);
    toast.error(`Could not sign out. ${problem.message}`);
    return { ok: false, problem };
  }
  resetGraphqlClient();
  toast.success("You are signed out.");
  return { ok: true };
}
