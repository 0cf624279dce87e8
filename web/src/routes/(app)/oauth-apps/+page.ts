import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { failLoad } from "$lib/services/errors";
import { OAUTH_APPS_DEPENDENCY } from "$lib/services/oauth-apps";
import type { PageLoad } from "./$types";

const OAuthAppsQuery = graphql(`
  query OAuthAppsPage {
    oauthClients {
      clientId
      name
      ...OAuthClientCard_client
    }
    authorizedApps {
      ...AuthorizedApps_app
    }
  }
`);

export const load: PageLoad = async ({ depends, url }) => {
  depends(OAUTH_APPS_DEPENDENCY);
  const result = await graphqlClient().query(OAuthAppsQuery, {}, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  return { clients: result.data.oauthClients, authorizedApps: result.data.authorizedApps };
};
