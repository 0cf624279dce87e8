// Only administrators may open the admin area (the server refuses them the admin API either way).
import { error } from "@sveltejs/kit";
import type { PageLoad } from "./$types";

export const load: PageLoad = async ({ parent }) => {
  const { viewer } = await parent();
  if (!viewer.can.administer) error(403, { message: "Only administrators can open the admin area.", code: "forbidden" });
};
