import { alive } from "../../replicas.ts";
import type { Step } from "../types.ts";

export const retireOld: Step = {
  name: "retire",
  label: "Retiring the previous release",
  async run(ctx) {
    const workers = ctx.replacedWorkers?.map((group) => group.type) ?? [];
    if (workers.length) ctx.log(`Stopping the previous release's ${workers.join(", ")}.`);
    if (!ctx.replaced?.replicas.some(alive)) {
      if (!workers.length) ctx.log("No previous instance to stop.");
      return ctx.workers?.retire(ctx.replacedWorkers ?? []);
    }
    await Promise.all([ctx.supervisor!.retire(ctx.replaced), ctx.workers?.retire(ctx.replacedWorkers ?? [])]);
  },
};
