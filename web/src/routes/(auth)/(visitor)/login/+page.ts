// "Sign in to continue to <app>": when `next` is an app's consent page, the app's name (and owner) come
// from the server, never from the address, so a link cannot put words in the heading.
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { signInPurpose } from "$lib/navigation";
import type { PageLoad } from "./$types";

const PreviewQuery = graphql(`
  query SignInFor($clientId: String!) {
    oauthClientPreview(clientId: $clientId) {
      name
      ownerName
    }
  }
`);

export const load: PageLoad = async ({ url }) => {
  const purpose = signInPurpose(url);
  if (!purpose) return { app: null, device: false };
  if ("device" in purpose) return { app: null, device: true };
  const result = await graphqlClient().query(PreviewQuery, { clientId: purpose.clientId }).toPromise();
  return { app: result.data?.oauthClientPreview ?? null, device: false };
};
