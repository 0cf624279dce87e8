// OAuth clients and userinfo (the protocol endpoints themselves are server/oauth/).
import type { RestRoute } from "../types.ts";

export const oauthRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/oauth/clients",
    tag: "oauth",
    summary: "The OAuth clients you registered (never their secrets)",
    document: `query OAuthClients { oauthClients(first: 100) { ...OAuthClientFields } }`,
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
    method: "POST",
    path: "/api/oauth/clients/:clientId/secret",
    tag: "oauth",
    summary: "Add a secret to a confidential client (rotation): the answer holds the new one, shown only this once; the older ones keep working until deleted",
    document: `mutation RotateOAuthClientSecret($clientId: String!) {
      rotateOAuthClientSecret(clientId: $clientId) {
        ... on OAuthClientWithSecret { clientId name description redirectUris public createdAt clientSecret }
        ...ErrorFields } }`,
  },
  {
    method: "GET",
    path: "/api/oauth/clients/:clientId",
    tag: "oauth",
    summary: "One of your OAuth clients, with its secrets' last four characters and last-used dates (never the secrets)",
    document: `query OAuthClient($clientId: String!) {
      oauthClient(clientId: $clientId) {
        ... on OAuthClient { ...OAuthClientFields homepageUrl logoFileId logoUrl secrets { id lastFour createdAt lastUsedAt } }
        ...ErrorFields } }`,
  },
  {
    method: "DELETE",
    path: "/api/oauth/clients/:clientId/secrets/:secretId",
    tag: "oauth",
    summary: "Delete one of a client's secrets: it stops working at once",
    document: `mutation DeleteOAuthClientSecret($clientId: String!, $secretId: String!) {
      deleteOAuthClientSecret(clientId: $clientId, secretId: $secretId) {
        ... on OAuthClientSecret { id lastFour createdAt lastUsedAt }
        ...ErrorFields } }`,
  },
  {
    method: "GET",
    path: "/oauth/userinfo",
    tag: "oauth",
    summary: "The user an access token belongs to, and the token's scopes",
    document: `query UserInfo { userinfo { id name preferred_username: preferredUsername email avatar role status scopes } }`,
  },
];
