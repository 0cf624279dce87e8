import type { Step } from "../types.ts";
import { buildImage, runInSandbox } from "./sandboxed.ts";

export const build: Step = {
  name: "build",
  label: "Building",
  async run(ctx) {
    const { steps, image } = ctx.plan!;
    if (image) await buildImage(ctx, image.dockerfile);
    else if (steps.length === 0) ctx.log("Nothing to build.");
    for (const step of steps) await runInSandbox(ctx, step.label, step.argv, step.env);
  },
};
