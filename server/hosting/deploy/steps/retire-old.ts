import { alive } from "../../replicas.ts";
import type { Step } from "../types.ts";

export const retireOld: Step = {
  name: "retire",
  label: "Retiring the previous release",
  async run(ctx) {
    if (!ctx.replaced?.replicas.some(alive)) return ctx.log("No previous instance to stop.");
    await ctx.supervisor!.retire(ctx.replaced);
  },
};
