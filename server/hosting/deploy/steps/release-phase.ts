import type { Step } from "../types.ts";
import { runInSandbox } from "./sandboxed.ts";

export const releasePhase: Step = {
  name: "release",
  label: "Running the release phase",
  async run(ctx) {
    const release = ctx.plan!.release;
    if (!release) return ctx.log("No release phase (Procfile `release:`).");
    const web = ctx.plan!.web;
    // Its lines are the release process's (LogLine.process "release"), in the build log.
    const output = ctx.processOutput("release");
    try {
      await runInSandbox(ctx, "The release phase", release, web.kind === "process" ? web.env : undefined, output.sink);
    } finally {
      output.end();
    }
  },
};
