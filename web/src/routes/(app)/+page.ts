// Home: someone with no app yet starts on the apps page, whose first step is creating one; everyone else on their account.
import { redirect } from "@sveltejs/kit";
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { failLoad } from "$lib/services/errors";
import type { PageLoad } from "./$types";

const HomeQuery = graphql(`
  query Home {
    viewer {
      quota {
        usage {
          apps
        }
      }
    }
  }
`);

export const load: PageLoad = async ({ url }) => {
  const result = await graphqlClient().query(HomeQuery, {}, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  redirect(307, result.data.viewer.quota.usage.apps === 0 ? "/apps" : "/account");
};
