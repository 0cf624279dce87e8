import fs from "node:fs/promises";
import { DeployError } from "../../errors.ts";
import { GitSource } from "../../source/git.ts";
import type { Step } from "../types.ts";

export const fetchSource: Step = {
  name: "fetch",
  label: "Fetching the source",
  async run(ctx) {
    if (ctx.source === "zip") {
      // Checked and extracted at upload, so that a bad zip is refused there with a 400.
      const entries = await fs.readdir(ctx.releaseDir).catch(() => null);
      if (!entries) throw new DeployError("The uploaded source is gone: upload the zip again.");
      return ctx.log("The uploaded zip was extracted when it arrived.");
    }
    if (!ctx.git) throw new DeployError("This deployment names no repository: deploy again with one.");
    const source = new GitSource({ ...ctx.git, deadline: ctx.buildDeadline, signal: ctx.signal });
    ctx.log(`Fetching ${source.description}${ctx.git.token ? " with a GitHub token" : ""}.`);
    await source.fetch(ctx.releaseDir, ctx.log);
    await ctx.recordCommit(source.checkedOut!.commit, source.checkedOut!.message);
  },
};
