// Runs one command of a deployment (a build step, the release phase) in the app's sandbox, within what is
// left of the build time limit; a non-zero exit fails the deployment with the command named.
import { DeployCanceled, DeployError } from "../../errors.ts";
import { describeExit } from "../../health.ts";
import type { DeployContext } from "../types.ts";

/** The operator's build variables, then the app's own, then what the step itself needs (a virtualenv's PATH). */
export async function runInSandbox(ctx: DeployContext, label: string, argv: string[], stepEnv: Record<string, string> = {}): Promise<void> {
  const timeoutMs = ctx.buildDeadline - Date.now();
  if (timeoutMs <= 0) throw new DeployError("The build ran out of time before this step.");
  ctx.log(`$ ${argv.join(" ")}`);
  const result = await ctx.driver.run({
    appKey: ctx.app.id,
    workDir: ctx.releaseDir,
    argv,
    env: { ...ctx.build.env, ...ctx.env, ...stepEnv },
    readOnlyPaths: ctx.build.readOnlyPaths,
    cacheDir: ctx.build.cacheDir,
    limits: ctx.buildLimits,
    onOutput: ctx.output,
    timeoutMs,
    signal: ctx.signal,
  });
  if (result.aborted) throw new DeployCanceled();
  if (result.timedOut) throw new DeployError(`${label} was stopped: the build time limit ran out.`);
  if (result.code !== 0) throw new DeployError(`${label} failed (${describeExit(result)}).`);
}
