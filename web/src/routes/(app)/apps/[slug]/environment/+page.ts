import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { APP_DEPENDENCY } from "$lib/services/apps";
import { failLoad } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const EnvQuery = graphql(`
  query AppEnvironment($slug: String!) {
    app(slug: $slug) {
      env {
        ...EnvEditor_var
      }
    }
  }
`);

export const load: PageLoad = async ({ depends, params, url }) => {
  depends(APP_DEPENDENCY);
  const result = await graphqlClient().query(EnvQuery, { slug: params.slug }, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  return { env: result.data.app.env };
};
