import { detectBuild } from "../../builders/index.ts";
import type { Step } from "../types.ts";

export const detect: Step = {
  name: "detect",
  label: "Detecting how to build the app",
  async run(ctx) {
    const plan = await detectBuild({ dir: ctx.releaseDir, previousDir: ctx.previous?.dir, log: ctx.log });
    ctx.log(`Detected a ${plan.builder} app.`);
    ctx.plan = plan;
  },
};
