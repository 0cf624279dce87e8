// Every tab of an app's page: the app (kept live by the layout's subscription) and the upload limit.
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { APP_DEPENDENCY } from "$lib/services/apps";
import { failLoad } from "$lib/services/errors";
import type { LayoutLoad } from "./$types";

const AppQuery = graphql(`
  query AppPage($slug: String!) {
    app(slug: $slug) {
      ...AppPage_app
    }
    viewer {
      quota {
        maxUploadBytes
      }
    }
  }
`);

export const load: LayoutLoad = async ({ depends, params, url, parent }) => {
  depends(APP_DEPENDENCY);
  const [{ viewer }, result] = await Promise.all([
    parent(),
    graphqlClient().query(AppQuery, { slug: params.slug }, { requestPolicy: "network-only" }).toPromise(),
  ]);
  if (!result.data) failLoad(result.error, url);
  return {
    slug: params.slug,
    app: result.data.app,
    canWrite: viewer.can.writeApps,
    maxUploadBytes: result.data.viewer.quota.maxUploadBytes,
  };
};
