// Runs one command of a deployment (a build step, the release phase) in the app's sandbox, within what is
// left of the build time limit; a non-zero exit fails the deployment with the command named. An image build (a
// Dockerfile) likewise, through the runtime; a failing step fails the deployment with the builder's message.
import { DeployCanceled, DeployError } from "../../errors.ts";
import { describeExit } from "../../health.ts";
import { shownCommand } from "../shown-command.ts";
import type { DeployContext } from "../types.ts";

/** The operator's build variables, then the app's own, then what the step itself needs (a virtualenv's PATH). */
export async function runInSandbox(ctx: DeployContext, label: string, argv: string[], stepEnv: Record<string, string> = {}, output = ctx.output): Promise<void> {
  const timeoutMs = remainingBuildTime(ctx);
  ctx.log(`$ ${shownCommand(argv)}`);
  const result = await ctx.driver.run({
    appKey: ctx.app.id,
    workDir: ctx.releaseDir,
    argv,
    env: { ...ctx.build.env, ...ctx.env, ...stepEnv },
    // A release built from a Dockerfile runs its release phase in its image (the runtime looks it up by this).
    ...(ctx.plan?.image ? { release: { slug: ctx.app.slug, deploymentId: ctx.deploymentId } } : {}),
    readOnlyPaths: ctx.build.readOnlyPaths,
    cacheDir: ctx.build.cacheDir,
    limits: ctx.buildLimits,
    onOutput: output,
    timeoutMs,
    signal: ctx.signal,
  });
  if (result.aborted) throw new DeployCanceled();
  if (result.timedOut) throw new DeployError(`${label} was stopped: the build time limit ran out.`);
  if (result.code !== 0) throw new DeployError(`${label} failed (${describeExit(result)}).`);
}

/** Builds the release's image from the project's Dockerfile; the build log gets the builder's output line by line. */
export async function buildImage(ctx: DeployContext, dockerfile: string): Promise<void> {
  const timeoutMs = remainingBuildTime(ctx);
  if (!ctx.driver.buildImage) throw new DeployError(`RUNTIME=${ctx.driver.name} does not build Dockerfiles: RUNTIME=docker or swarm does.`);
  ctx.log(`Building the image from ${dockerfile}`);
  const result = await ctx.driver.buildImage({
    appKey: ctx.app.id,
    release: { slug: ctx.app.slug, deploymentId: ctx.deploymentId },
    contextDir: ctx.releaseDir,
    dockerfile,
    buildArgs: { ...ctx.build.env, ...ctx.env },
    limits: ctx.buildLimits,
    onOutput: ctx.output,
    timeoutMs,
    signal: ctx.signal,
  });
  if (result.aborted) throw new DeployCanceled();
  if (result.timedOut) throw new DeployError("The image build was stopped: the build time limit ran out.");
  if (result.error !== null) throw new DeployError(`The image build failed: ${result.error}`);
}

/** What is left of the build time limit; none left fails the deployment before the next step starts. */
function remainingBuildTime(ctx: DeployContext): number {
  const timeoutMs = ctx.buildDeadline - Date.now();
  if (timeoutMs <= 0) throw new DeployError("The build ran out of time before this step.");
  return timeoutMs;
}
