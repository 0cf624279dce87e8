import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { ACCOUNT_DEPENDENCY } from "$lib/services/account";
import { failLoad } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const AccountQuery = graphql(`
  query AccountPage {
    viewer {
      user {
        ...AccountSummary_user
        ...ProfileForm_user
        name
      }
      quota {
        ...QuotaCard_quota
      }
    }
    sessions {
      ...SessionList_session
    }
  }
`);

export const load: PageLoad = async ({ depends, url }) => {
  depends(ACCOUNT_DEPENDENCY);
  const result = await graphqlClient().query(AccountQuery, {}, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  return { account: result.data.viewer, sessions: result.data.sessions };
};
