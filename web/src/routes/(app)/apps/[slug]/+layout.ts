import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { APP_DEPENDENCY } from "$lib/services/apps";
import { failLoad, problemFrom } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const AppQuery = graphql(`
  query AppPage($slug: String!) {
    app(slug: $slug) {
      ...AppPage_app
      env {
        ...EnvEditor_var
      }
      resources {
        ...DatabasesPanel_resource
      }
    }
    databaseTypes
    viewer {
      quota {
        maxUploadBytes
      }
    }
  }
`);

// Its own query, so that the rest of the page still shows when this part cannot load.
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

export const load: PageLoad = async ({ depends, params, url }) => {
  depends(APP_DEPENDENCY);
  const client = graphqlClient();
  const [result, github] = await Promise.all([
    client.query(AppQuery, { slug: params.slug }, { requestPolicy: "network-only" }).toPromise(),
    client.query(GitHubQuery, { slug: params.slug }, { requestPolicy: "network-only" }).toPromise(),
  ]);
  if (!result.data) failLoad(result.error, url);
  return {
    slug: params.slug,
    app: result.data.app,
    env: result.data.app.env,
    resources: result.data.app.resources,
    databaseTypes: result.data.databaseTypes,
    maxUploadBytes: result.data.viewer.quota.maxUploadBytes,
    github: github.data ? { app: github.data.app, webhook: github.data.githubWebhook, problem: null } : { app: null, webhook: null, problem: problemFrom(github.error) },
  };
};
