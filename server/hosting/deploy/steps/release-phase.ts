import type { Step } from "../types.ts";
import { runInSandbox } from "./sandboxed.ts";

export const releasePhase: Step = {
  name: "release",
  label: "Running the release phase",
  async run(ctx) {
    const release = ctx.plan!.release;
    if (!release) return ctx.log("No release phase (Procfile `release:`).");
    const web = ctx.plan!.web;
    await runInSandbox(ctx, "The release phase", release, web.kind === "process" ? web.env : undefined);
  },
};
