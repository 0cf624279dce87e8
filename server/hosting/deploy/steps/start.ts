import type { WebProcess } from "../../builders/types.ts";
import { shownCommand } from "../shown-command.ts";
import type { DeployContext, Step } from "../types.ts";

export const start: Step = {
  name: "start",
  label: "Starting the new release",
  async run(ctx) {
    const web = ctx.rollbackOf?.web ?? ctx.plan!.web;
    ctx.candidate = await ctx.supervisor!.start({ deploymentId: ctx.deploymentId, dir: ctx.releaseDir, web });
    logStartCommand(ctx, web);
  },
};

/** What the release runs, as the user wrote it (a Procfile line, a start script), on every runtime. */
export function logStartCommand(ctx: DeployContext, web: WebProcess): void {
  ctx.log(web.kind === "static" ? "A static site: Slipway serves its files." : web.argv.length ? `$ ${web.shown ?? shownCommand(web.argv)}` : "The image's own command (CMD/ENTRYPOINT)");
}
