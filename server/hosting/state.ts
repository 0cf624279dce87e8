// The engine's writes to apps and deployments, each followed by the event live views wait for.
import type { Db } from "../db/client.ts";
import type { PubSub } from "../platform/pubsub/index.ts";

export type AppStatus = "CREATED" | "DEPLOYING" | "RUNNING" | "CRASHED" | "STOPPED" | "FAILED" | "SLEEPING";
export type DeploymentStatus = "QUEUED" | "BUILDING" | "STARTING" | "LIVE" | "FAILED" | "SUPERSEDED" | "CANCELED";

export const appTopic = (appId: string) => `app:${appId}`;

export interface DeploymentUpdate {
  status?: DeploymentStatus;
  error?: string | null;
  startedAt?: Date;
  finishedAt?: Date;
  releasePath?: string | null;
  steps?: { name: string; ms: number }[];
  web?: unknown;
  /** The release's app.json cron jobs. */
  cron?: unknown[];
  /** The release's process types beside web (type → argv). */
  processes?: Record<string, string[]> | null;
  commit?: string;
  commitMessage?: string;
  builder?: string;
  /** The app's last output lines, for a start that failed. */
  failureOutput?: string[] | null;
}

/** `settled`: a deployment finished (LIVE, FAILED, CANCELED), with its steps' times (the platform's metrics). */
export function createHostingState(
  db: Db,
  pubsub: PubSub,
  settled: (status: DeploymentStatus, steps: { ms: number }[], ids: { appId: string; deploymentId: string }) => void = () => {},
) {
  const changed = (appId: string) => pubsub.publish(appTopic(appId), { at: Date.now() }).catch(() => {});
  return {
    changed,
    async setAppStatus(appId: string, status: AppStatus, liveDeploymentId?: string | null): Promise<void> {
      await db.app.updateMany({ where: { id: appId }, data: appData(status, liveDeploymentId) });
      await changed(appId);
    },
    async updateDeployment(appId: string, deploymentId: string, update: DeploymentUpdate): Promise<void> {
      await db.deployment.updateMany({ where: { id: deploymentId }, data: deploymentData(update) });
      await changed(appId);
    },
    /**
     * A deployment's outcome and the app's status in one transaction: a reader who sees the deployment settled
     * also sees the app status that goes with it (never LIVE next to DEPLOYING).
     */
    async settleDeployment(
      appId: string,
      deploymentId: string,
      outcome: DeploymentUpdate & { app: AppStatus; liveDeploymentId?: string; superseded?: string | null },
    ): Promise<void> {
      const { app: status, liveDeploymentId, superseded, ...update } = outcome;
      await db.$transaction([
        db.deployment.updateMany({ where: { id: deploymentId }, data: deploymentData(update) }),
        ...(superseded ? [db.deployment.updateMany({ where: { id: superseded }, data: { status: "SUPERSEDED" } })] : []),
        db.app.updateMany({ where: { id: appId }, data: appData(status, liveDeploymentId) }),
      ]);
      if (update.status) settled(update.status, update.steps ?? [], { appId, deploymentId });
      await changed(appId);
    },
  };
}

/** `liveDeploymentId` undefined: the live deployment stays as it is. */
function appData(status: AppStatus, liveDeploymentId: string | null | undefined) {
  return { status, ...(liveDeploymentId !== undefined ? { liveDeploymentId } : {}) };
}

function deploymentData({ web, cron, processes, steps, failureOutput, ...rest }: DeploymentUpdate) {
  return {
    ...rest,
    ...(steps ? { steps } : {}),
    ...(web ? { web: web as object } : {}),
    ...(cron ? { cron: cron as object[] } : {}),
    ...(processes ? { processes } : {}),
    ...(failureOutput ? { failureOutput } : {}),
  };
}

export type HostingState = ReturnType<typeof createHostingState>;
