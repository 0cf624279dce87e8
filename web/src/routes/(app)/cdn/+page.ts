import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { CDN_DEPENDENCY } from "$lib/services/cdn";
import { failLoad } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const CdnQuery = graphql(`
  query CdnPage {
    files(first: 100) {
      id
      ...FileList_file
    }
    viewer {
      quota {
        cdnBytes
        maxUploadBytes
        usage {
          cdnBytes
        }
      }
    }
  }
`);

export const load: PageLoad = async ({ depends, url }) => {
  depends(CDN_DEPENDENCY);
  const result = await graphqlClient().query(CdnQuery, {}, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  return { files: result.data.files, quota: result.data.viewer.quota };
};
