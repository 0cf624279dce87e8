import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { APP_DEPENDENCY } from "$lib/services/apps";
import { failLoad } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const ResourcesQuery = graphql(`
  query AppResources($slug: String!) {
    app(slug: $slug) {
      resources {
        ...DatabasesPanel_resource
      }
    }
    databaseTypes
  }
`);

export const load: PageLoad = async ({ depends, params, url }) => {
  depends(APP_DEPENDENCY);
  const result = await graphqlClient().query(ResourcesQuery, { slug: params.slug }, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  return { resources: result.data.app.resources, databaseTypes: result.data.databaseTypes };
};
