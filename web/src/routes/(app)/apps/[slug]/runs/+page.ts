// The Runs tab's cron jobs and runs, its own query (the layout's app does not carry them); the page keeps them live.
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { failLoad } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const AppRunsQuery = graphql(`
  query AppRuns($slug: String!) {
    app(slug: $slug) {
      cronJobs {
        id
        ...CronJobList_job
      }
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
  return { runs: result.data.app.runs, cronJobs: result.data.app.cronJobs };
};
