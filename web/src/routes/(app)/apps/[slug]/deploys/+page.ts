// The Deploys tab's GitHub part, its own query: where it cannot load, the rest of the tab still works.
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { problemFrom } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const GitHubQuery = graphql(`
  query AppPageGitHub($slug: String!) {
    app(slug: $slug) {
      ...AppPage_github
    }
    githubWebhook {
      ...WebhookSetup_webhook
    }
  }
`);

export const load: PageLoad = async ({ params }) => {
  const github = await graphqlClient().query(GitHubQuery, { slug: params.slug }, { requestPolicy: "network-only" }).toPromise();
  return {
    github: github.data ? { app: github.data.app, webhook: github.data.githubWebhook, problem: null } : { app: null, webhook: null, problem: problemFrom(github.error) },
  };
};
