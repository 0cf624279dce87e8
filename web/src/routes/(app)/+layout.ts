// Every page of the signed-in shell: visitors who are not signed in go to /login, and come back after; when
// the API cannot be reached, the error page says so and offers a retry.
import { error, redirect } from "@sveltejs/kit";
import { loginUrl } from "$lib/navigation";
import type { LayoutLoad } from "./$types";

export const load: LayoutLoad = async ({ parent, url }) => {
  const { viewer, unreachable } = await parent();
  if (unreachable) error(503, { message: "Slipway cannot be reached. Check your connection and try again.", code: "network" });
  if (!viewer) redirect(307, loginUrl(url));
  return { viewer };
};
