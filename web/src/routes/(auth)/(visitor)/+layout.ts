// Sign-in, sign-up and the forgotten-password form are for visitors: someone signed in goes on to the dashboard.
// (The pages that links in mails open, /verify and /reset-password, work signed in or not.)
import { redirect } from "@sveltejs/kit";
import { afterSignIn, isServerPage } from "$lib/navigation";
import type { LayoutLoad } from "./$types";

export const load: LayoutLoad = async ({ parent, url }) => {
  const { viewer } = await parent();
  if (!viewer) return;
  const target = afterSignIn(url);
  if (isServerPage(target)) {
    window.location.replace(target);
    return new Promise<never>(() => {}); // the page is being replaced
  }
  redirect(307, target);
};
