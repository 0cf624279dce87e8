// Turns what happens on the platform into notifications: a webhook delivery for each of the owner's webhooks
// subscribed to the event, and a mail for deploy.failed and app.crashed unless the owner turned mail off. Emitting
// never fails the operation that raised the event: its own failures go to the operator's log.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { Clock } from "../hosting/clock.ts";
import type { DeploymentStatus } from "../generated/sqlite/enums.ts";
import type { MailLogger, Mailer } from "../platform/mail/index.ts";
import { CRASH_LOOP, CrashLoops } from "./crash-loop.ts";
import type { Deliveries } from "./deliveries.ts";
import { MAILED_EVENTS, type EventName } from "./events.ts";
import { mailFor } from "./mails.ts";

export interface NotifierDeps {
  db: Db;
  config: Pick<Config, "publicUrl">;
  /** Where an app answers (AppService.url). */
  appUrl(slug: string): string;
  deliveries: Deliveries;
  mailer: Mailer;
  logger: MailLogger;
  clock: Pick<Clock, "now">;
}

export function createNotifier(deps: NotifierDeps) {
  const { db, deliveries, mailer, logger } = deps;
  const crashLoops = new CrashLoops(deps.clock);
  const underway = new Set<Promise<void>>();

  async function notify(ownerId: string, event: EventName, data: Record<string, unknown>): Promise<void> {
    const hooks = await db.webhook.findMany({ where: { ownerId }, select: { id: true, events: true } });
    await deliveries.enqueue(hooks.filter((hook) => hook.events.split(",").includes(event)).map((hook) => hook.id), event, data);
    if (!MAILED_EVENTS.has(event)) return;
    const owner = await db.user.findUnique({ where: { id: ownerId }, select: { email: true, name: true, emailNotifications: true, status: true } });
    if (!owner?.emailNotifications || owner.status === "SUSPENDED") return;
    await mailer.send({ to: owner.email, ...mailFor(event, data, { name: owner.name, dashboardUrl: deps.config.publicUrl }) });
  }

  /** In the background: the caller's operation goes on whatever happens here. */
  function emit(work: () => Promise<void>, what: string): void {
    const running = work()
      .catch((error: unknown) => logger.error({ err: error }, `notifying ${what}`))
      .finally(() => underway.delete(running));
    underway.add(running);
  }

  async function appOf(appId: string) {
    const app = await db.app.findUnique({ where: { id: appId }, select: { slug: true, ownerId: true } });
    return app && { ownerId: app.ownerId, app: { slug: app.slug, url: deps.appUrl(app.slug) } };
  }

  return {
    /** deploy.succeeded (LIVE) or deploy.failed (FAILED); a live release also ends the app's crash loop. */
    deploymentSettled(ids: { appId: string; deploymentId: string }, status: DeploymentStatus): void {
      if (status === "LIVE") crashLoops.reset(ids.appId);
      if (status !== "LIVE" && status !== "FAILED") return;
      emit(async () => {
        const [found, deployment] = await Promise.all([
          appOf(ids.appId),
          db.deployment.findUnique({ where: { id: ids.deploymentId }, select: { id: true, status: true, source: true, commit: true, error: true, createdAt: true, finishedAt: true } }),
        ]);
        if (!found || !deployment) return;
        await notify(found.ownerId, status === "LIVE" ? "deploy.succeeded" : "deploy.failed", { app: found.app, deployment });
      }, `deployment ${ids.deploymentId}`);
    },

    /** A crash: the 5th within 10 minutes raises one app.crashed for the loop. */
    crashed(appId: string): void {
      if (!crashLoops.crashed(appId)) return;
      emit(async () => {
        const found = await appOf(appId);
        if (found) await notify(found.ownerId, "app.crashed", { app: found.app, crashes: CRASH_LOOP.crashes, withinMinutes: CRASH_LOOP.withinMs / 60_000 });
      }, `the crash loop of app ${appId}`);
    },

    runFailed(appId: string, runId: string): void {
      emit(async () => {
        const [found, run] = await Promise.all([
          appOf(appId),
          db.run.findUnique({ where: { id: runId }, select: { id: true, command: true, trigger: true, status: true, exitCode: true, error: true, createdAt: true, finishedAt: true } }),
        ]);
        if (found && run) await notify(found.ownerId, "run.failed", { app: found.app, run });
      }, `run ${runId}`);
    },

    domainVerified(appId: string, hostname: string): void {
      emit(async () => {
        const found = await appOf(appId);
        if (found) await notify(found.ownerId, "domain.verified", { app: found.app, domain: { hostname } });
      }, `domain ${hostname}`);
    },

    quotaDecided(requesterId: string, request: Record<string, unknown>): void {
      emit(() => notify(requesterId, "quota.decided", { request }), `limit request ${String(request.id)}`);
    },

    /** Notifications being sent have been handed over (tests, shutdown). */
    async settled(): Promise<void> {
      while (underway.size) await Promise.allSettled([...underway]);
      await deliveries.settled();
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
