import type { Step } from "../types.ts";
import { runInSandbox } from "./sandboxed.ts";

export const build: Step = {
  name: "build",
  label: "Building",
  async run(ctx) {
    const steps = ctx.plan!.steps;
    if (steps.length === 0) ctx.log("Nothing to build.");
    for (const step of steps) await runInSandbox(ctx, step.label, step.argv, step.env);
  },
};
