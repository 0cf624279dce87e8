import type { Step } from "../types.ts";

export const healthCheck: Step = {
  name: "health",
  label: "Waiting for the app to answer HTTP on its PORT",
  async run(ctx) {
    await ctx.supervisor!.waitHealthy(ctx.candidate!, ctx.signal);
  },
};
