import { BuildError, detectBuild } from "../../builders/index.ts";
import { readAppJson } from "../../builders/app-json.ts";
import { describeProbe } from "../../health-settings.ts";
import { BUILD_CACHE_PATH } from "../../../platform/runtime/paths.ts";
import type { Step } from "../types.ts";

export const detect: Step = {
  name: "detect",
  label: "Detecting how to build the app",
  async run(ctx) {
    const cachePath = ctx.driver.dataPath === null ? ctx.build.cacheDir : BUILD_CACHE_PATH;
    const plan = await detectBuild({ dir: ctx.releaseDir, previousDir: ctx.previous?.dir, cachePath, runtime: ctx.driver.name, log: ctx.log }).catch(async (error) => {
      if (error instanceof BuildError && error.builder) await ctx.recordBuilder(error.builder);
      throw error;
    });
    ctx.log(`Detected a ${plan.builder} app.`);
    await ctx.recordBuilder(plan.builder);
    const { healthcheck, cron } = await readAppJson(ctx.releaseDir);
    if (healthcheck && plan.web.kind === "process") {
      plan.web = { ...plan.web, healthcheck };
      ctx.log(`app.json: health check ${describeProbe(healthcheck)} every ${healthcheck.intervalSeconds} s (timeout ${healthcheck.timeoutSeconds} s).`);
    }
    for (const job of cron) ctx.log(`app.json: cron job \`${job.command}\` on "${job.schedule}" (UTC, timeout ${job.timeoutSeconds} s).`);
    ctx.cron = cron;
    ctx.plan = plan;
  },
};
