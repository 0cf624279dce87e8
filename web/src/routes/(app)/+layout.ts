// Every page of the signed-in shell: visitors who are not signed in go to /login, and come back after.
import { redirect } from "@sveltejs/kit";
import { loginUrl } from "$lib/navigation";
import type { LayoutLoad } from "./$types";

export const load: LayoutLoad = async ({ parent, url }) => {
  const { viewer } = await parent();
  if (!viewer) redirect(307, loginUrl(url));
  return { viewer };
};
