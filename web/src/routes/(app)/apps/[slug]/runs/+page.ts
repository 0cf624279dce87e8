// The Runs tab's list, its own query (the layout's app does not carry runs); the page keeps it live.
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { failLoad } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const AppRunsQuery = graphql(`
  query AppRuns($slug: String!) {
    app(slug: $slug) {
      runs(first: 50) {
        id
        ...RunList_run
      }
    }
  }
`);

export const load: PageLoad = async ({ params, url }) => {
  const result = await graphqlClient().query(AppRunsQuery, { slug: params.slug }, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  return { runs: result.data.app.runs };
};
