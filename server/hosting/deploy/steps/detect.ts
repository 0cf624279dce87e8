import { BuildError, detectBuild } from "../../builders/index.ts";
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
    ctx.plan = plan;
  },
};
