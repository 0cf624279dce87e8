import fs from "node:fs/promises";
import { DeployError } from "../../errors.ts";
import { GitSource } from "../../source/git.ts";
import { zipSource } from "../../source/zip.ts";
import type { Step } from "../types.ts";

export const fetchSource: Step = {
  name: "fetch",
  label: "Fetching the source",
  async run(ctx) {
    if (ctx.source === "zip") {
      // Checked when it arrived (a bad zip was refused there with a 400): extracted now, then let go.
      const zip = ctx.zip && (await fs.stat(ctx.zip).catch(() => null)) ? ctx.zip : null;
      if (!zip) throw new DeployError("The uploaded source is gone: upload the zip again.");
      try {
        return await zipSource(zip).fetch(ctx.releaseDir, ctx.log);
      } finally {
        await fs.rm(zip, { force: true });
      }
    }
    if (!ctx.git) throw new DeployError("This deployment names no repository: deploy again with one.");
    const source = new GitSource({ ...ctx.git, deadline: ctx.buildDeadline, signal: ctx.signal });
    ctx.log(`Fetching ${source.description}${ctx.git.token ? " with a GitHub token" : ""}.`);
    await source.fetch(ctx.releaseDir, ctx.log);
    await ctx.recordCommit(source.checkedOut!.commit, source.checkedOut!.message);
  },
};
