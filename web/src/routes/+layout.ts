// A single-page app (no server rendering): every page loads who is signed in, or null.
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { SESSION_DEPENDENCY } from "$lib/navigation";
import { failLoad, problemFrom } from "$lib/services/errors";
import type { LayoutLoad } from "./$types";

export const ssr = false;
export const prerender = false;

const SessionQuery = graphql(`
  query Session {
    viewer {
      user {
        id
        status
        ...AppHeader_user
      }
      can {
        writeUser
        writeApps
        administer
      }
    }
  }
`);

export const load: LayoutLoad = async ({ depends, url }) => {
  depends(SESSION_DEPENDENCY);
  // Read on every navigation (reading url.pathname makes it so): a session that ended, or a role or
  // status an administrator changed, shows on the next page rather than never.
  void url.pathname;
  const result = await graphqlClient().query(SessionQuery, {}, { requestPolicy: "network-only" }).toPromise();
  if (result.data) return { viewer: result.data.viewer, unreachable: false };
  const code = problemFrom(result.error).code;
  if (code === "unauthenticated") return { viewer: null, unreachable: false };
  // The signed-in shell says so and offers a retry ((app)/+layout.ts); the sign-in pages still show.
  if (code === "network") return { viewer: null, unreachable: true };
  failLoad(result.error, url);
};
