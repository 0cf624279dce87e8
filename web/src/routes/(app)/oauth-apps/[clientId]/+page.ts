import { error } from "@sveltejs/kit";
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { loadOAuthEndpoints } from "$lib/oauth-endpoints";
import { failLoad } from "$lib/services/errors";
import { OAUTH_APPS_DEPENDENCY } from "$lib/services/oauth-apps";
import type { PageLoad } from "./$types";

const OAuthAppQuery = graphql(`
  query OAuthAppPage($clientId: String!) {
    oauthClient(clientId: $clientId) {
      __typename
      ... on OAuthClient {
        clientId
        name
        description
        homepageUrl
        logoUrl
        redirectUris
        public
        createdAt
        ...ClientSecrets_client
        ...OAuthClientForm_client
      }
      ... on NotFoundError {
        message
      }
    }
    files(first: 100) {
      id
      name
      contentType
    }
  }
`);

/** What a logo may be (services/oauth-clients.ts): images a browser shows without running anything. */
const LOGO_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export const load: PageLoad = async ({ depends, fetch, params, url }) => {
  depends(OAUTH_APPS_DEPENDENCY);
  const [result, endpoints] = await Promise.all([
    graphqlClient().query(OAuthAppQuery, { clientId: params.clientId }, { requestPolicy: "network-only" }).toPromise(),
    loadOAuthEndpoints(fetch),
  ]);
  if (!result.data) failLoad(result.error, url);
  const client = result.data.oauthClient;
  if (client.__typename !== "OAuthClient") error(404, "No OAuth app with this client ID among yours.");
  return { client, endpoints, images: result.data.files.filter((file) => LOGO_TYPES.has(file.contentType)) };
};
