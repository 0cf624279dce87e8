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
    summary: "Rotate a confidential client's secret: the answer holds the new one, shown only this once; the old one stops working",
    document: `mutation RotateOAuthClientSecret($clientId: String!) {
      rotateOAuthClientSecret(clientId: $clientId) {
        ... on OAuthClientWithSecret { clientId name description redirectUris public createdAt clientSecret }
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
