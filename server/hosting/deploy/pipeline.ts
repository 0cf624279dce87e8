// A deployment is this ordered list of small steps; each one announces itself in the build log and is timed.
// A failure anywhere leaves the previous release serving: what the deployment started is stopped and its
// release folder removed.
import { DeployCanceled } from "../errors.ts";
import type { DeployContext, Step } from "./types.ts";
import { build } from "./steps/build.ts";
import { detect } from "./steps/detect.ts";
import { fetchSource } from "./steps/fetch-source.ts";
import { healthCheck } from "./steps/health-check.ts";
import { releasePhase } from "./steps/release-phase.ts";
import { retireOld } from "./steps/retire-old.ts";
import { serviceHealthy, serviceRetired, serviceSwitched, startService } from "./steps/rollout.ts";
import { start } from "./steps/start.ts";
import { startWorkers } from "./steps/start-workers.ts";
import { switchRoute } from "./steps/switch-route.ts";

/** fetch source → detect → build → release phase → start → health check → switch route → workers → retire old */
export const buildAndRelease: Step[] = [fetchSource, detect, build, releasePhase, start, healthCheck, switchRoute, startWorkers, retireOld];

/** A rollback starts a kept release again: no fetch, no build. */
export const restartRelease: Step[] = [start, healthCheck, switchRoute, startWorkers, retireOld];

/**
 * On an orchestrator the same steps, performed by its rollout (start-first, health-checked, rolled back on failure);
 * the other process types' services update once web's rollout is done.
 */
const rollout = [startService, serviceHealthy, serviceSwitched, startWorkers, serviceRetired];
export const buildAndRollOut: Step[] = [fetchSource, detect, build, releasePhase, ...rollout];
export const rollOutRelease: Step[] = rollout;

export interface StepTiming {
  name: string;
  ms: number;
}

/** Runs the steps in order; `timings` holds every step that ran, the failing one included. */
export async function runPipeline(
  steps: Step[],
  ctx: DeployContext,
  timings: StepTiming[],
  beforeStep: (name: string) => Promise<void> | void = () => {},
): Promise<void> {
  for (const step of steps) {
    if (ctx.signal.aborted) throw new DeployCanceled();
    if (step.skip?.(ctx)) continue;
    await beforeStep(step.name);
    ctx.log(`-----> ${step.label}`);
    const began = performance.now();
    try {
      await step.run(ctx);
    } finally {
      timings.push({ name: step.name, ms: Math.round((performance.now() - began) * 10) / 10 });
    }
  }
}
