import type { Step } from "../types.ts";

export const healthCheck: Step = {
  name: "health",
  label: "Waiting for the app to pass its health check",
  async run(ctx) {
    await ctx.supervisor!.waitHealthy(ctx.candidate!, ctx.signal);
  },
};
