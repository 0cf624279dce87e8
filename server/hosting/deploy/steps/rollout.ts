import type { Step } from "../types.ts";

/** On an orchestrator (RUNTIME=swarm): start, health check, switch and retire are one service update. */
export const rollout: Step = {
  name: "start",
  label: "Rolling out the new release (Swarm service update, start-first)",
  async run(ctx) {
    const web = ctx.rollbackOf?.web ?? ctx.plan!.web;
    await ctx.service!.rollout({ deploymentId: ctx.deploymentId, dir: ctx.releaseDir, web }, { log: ctx.log, signal: ctx.signal });
    ctx.replaced = null;
  },
};
