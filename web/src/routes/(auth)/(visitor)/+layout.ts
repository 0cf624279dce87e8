// Sign-in, sign-up and the forgotten-password form are for visitors: someone signed in goes on to the dashboard.
// (The pages that links in mails open, /verify and /reset-password, work signed in or not.)
import { redirect } from "@sveltejs/kit";
import { afterSignIn } from "$lib/navigation";
import type { LayoutLoad } from "./$types";

export const load: LayoutLoad = async ({ parent, url }) => {
  const { viewer } = await parent();
  if (viewer) redirect(307, afterSignIn(url));
};
