import type { Step } from "../types.ts";

export const switchRoute: Step = {
  name: "switch",
  label: "Sending traffic to the new release",
  async run(ctx) {
    ctx.signal.throwIfAborted();
    ctx.replaced = ctx.supervisor!.promote(ctx.candidate!);
    await ctx.supervisor!.routesSettled();
  },
};
