// The REST route table: each documented route runs one GraphQL operation of the same schema.
// `input` names the variable the JSON body becomes; the root field's value is the response body.
import type { RestRoute } from "./types.ts";

export const routes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/me",
    tag: "account",
    summary: "The signed-in user and their quota",
    document: `query Viewer { viewer { user { ...UserFields } quota { ...QuotaFields } } }`,
  },
  {
    method: "POST",
    path: "/api/auth/signup",
    tag: "account",
    summary: "Create an account; starts a dashboard session (cookie)",
    document: `mutation Signup($input: SignupInput!) { signup(input: $input) { ... on AuthPayload { user { ...UserFields } } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "POST",
    path: "/api/auth/login",
    tag: "account",
    summary: "Sign in with email and password; starts a dashboard session (cookie)",
    document: `mutation Login($input: LoginInput!) { login(input: $input) { ... on AuthPayload { user { ...UserFields } } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "POST",
    path: "/api/auth/logout",
    tag: "account",
    summary: "Sign out: revokes the session server-side",
    document: `mutation Logout { logout }`,
    status: 204,
  },
  {
    method: "GET",
    path: "/api/oauth/clients",
    tag: "oauth",
    summary: "The OAuth clients you registered (never their secrets)",
    document: `query OAuthClients { oauthClients { ...OAuthClientFields } }`,
  },
  {
    method: "POST",
    path: "/api/oauth/clients",
    tag: "oauth",
    summary: "Register an OAuth client; a confidential client's answer holds its secret, shown only this once",
    document: `mutation CreateOAuthClient($input: CreateOAuthClientInput!) {
      createOAuthClient(input: $input) {
        ... on OAuthClient { ...OAuthClientFields }
        ... on OAuthClientWithSecret { clientId name description redirectUris public createdAt clientSecret }
        ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "GET",
    path: "/oauth/userinfo",
    tag: "oauth",
    summary: "The user an access token belongs to, and the token's scopes",
    document: `query UserInfo { userinfo { id name preferred_username: preferredUsername email avatar role status scopes } }`,
  },
];
