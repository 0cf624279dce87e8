import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { failLoad } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const AccountQuery = graphql(`
  query AccountPage {
    viewer {
      user {
        ...AccountSummary_user
      }
      quota {
        ...QuotaCard_quota
      }
    }
  }
`);

export const load: PageLoad = async ({ url }) => {
  const result = await graphqlClient().query(AccountQuery, {}, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  return { account: result.data.viewer };
};
