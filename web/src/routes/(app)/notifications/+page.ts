import { graphqlClient } from "$lib/graphql/client";
import { failLoad } from "$lib/services/errors";
import { NOTIFICATIONS_DEPENDENCY, NotificationsQuery } from "$lib/services/webhooks";
import type { PageLoad } from "./$types";

export const load: PageLoad = async ({ depends, url }) => {
  depends(NOTIFICATIONS_DEPENDENCY);
  const result = await graphqlClient().query(NotificationsQuery, {}, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) failLoad(result.error, url);
  return { notifications: result.data };
};
