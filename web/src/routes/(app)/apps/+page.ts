import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { APPS_DEPENDENCY } from "$lib/services/apps";
import { failLoad } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const AppsQuery = graphql(`
  query AppsPage {
    apps {
      slug
      ...AppList_app
    }
    viewer {
      quota {
        maxApps
        usage {
          apps
        }
      }
    }
  }
`);

export const load: PageLoad = async ({ depends, url }) => {
  depends(APPS_DEPENDENCY);
  const result = await graphqlClient().query(AppsQuery, {}, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  return { apps: result.data.apps, quota: result.data.viewer.quota };
};
