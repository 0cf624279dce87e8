import { quantityOf } from "../../processes/workers.ts";
import { shownCommand } from "../shown-command.ts";
import type { DeployContext, Step } from "../types.ts";

/**
 * Once the new release's web instances answer and take traffic: its other process types start (worker, clock, …);
 * the previous release's stop in the retire step, beside the old web instances' drain. Skipped when neither release
 * has any.
 */
export const startWorkers: Step = {
  name: "workers",
  label: "Starting the other process types",
  skip: (ctx) => !ctx.workers || (!Object.keys(processesOf(ctx)).length && !ctx.workers.types.length),
  async run(ctx) {
    const processes = processesOf(ctx);
    // As the app is scaled now, not when the deployment began.
    const formation = await ctx.formation();
    for (const [type, argv] of Object.entries(processes)) ctx.log(`${type} × ${quantityOf(formation, type)}: $ ${shownCommand(argv)}`);
    const web = ctx.rollbackOf?.web ?? ctx.plan!.web;
    ctx.replacedWorkers = await ctx.workers!.start({ deploymentId: ctx.deploymentId, dir: ctx.releaseDir, web, processes }, formation);
  },
};

function processesOf(ctx: DeployContext): Record<string, string[]> {
  return (ctx.rollbackOf ? ctx.rollbackOf.processes : ctx.plan?.processes) ?? {};
}
