// Sign-in and sign-up are for visitors: someone already signed in goes on to the dashboard.
import { redirect } from "@sveltejs/kit";
import { afterSignIn } from "$lib/navigation";
import type { LayoutLoad } from "./$types";

export const load: LayoutLoad = async ({ parent, url }) => {
  const { viewer } = await parent();
  if (viewer) redirect(307, afterSignIn(url));
};
