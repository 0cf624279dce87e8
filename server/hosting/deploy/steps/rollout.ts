// On an orchestrator (RUNTIME=swarm) the same four steps as with Slipway's own supervisor, with the same names
// and log headings: start asks Swarm for the rollout, health waits until Swarm completed it (each new task
// passed its health check; a failure is rolled back by Swarm), switch waits for the edge, and retire says
// what Swarm did with the previous tasks.
import type { Step } from "../types.ts";
import { healthCheck } from "./health-check.ts";
import { retireOld } from "./retire-old.ts";
import { logStartCommand, start } from "./start.ts";
import { switchRoute } from "./switch-route.ts";

export const startService: Step = {
  ...start,
  async run(ctx) {
    const web = ctx.rollbackOf?.web ?? ctx.plan!.web;
    await ctx.service!.begin({ deploymentId: ctx.deploymentId, dir: ctx.releaseDir, web }, ctx.log);
    logStartCommand(ctx, web);
  },
};

export const serviceHealthy: Step = {
  ...healthCheck,
  async run(ctx) {
    await ctx.service!.complete(ctx.log, ctx.signal);
  },
};

export const serviceSwitched: Step = {
  ...switchRoute,
  async run(ctx) {
    // Each new task took traffic as soon as it was healthy: the route follows the running tasks.
    ctx.replaced = null;
    await ctx.service!.routesSettled();
  },
};

export const serviceRetired: Step = {
  ...retireOld,
  async run(ctx) {
    ctx.log("Swarm stopped the previous release's tasks once the new ones passed their health check.");
    const gone = ctx.replacedWorkers ?? [];
    if (gone.length) ctx.log(`Removing the services of ${gone.map((group) => group.type).join(", ")}: the new release has no such type.`);
    await ctx.workers?.retire(gone);
  },
};
