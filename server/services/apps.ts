// Apps: create, read, edit, delete, stop and restart, always within the owner's own apps (another user's
// app is "not found", never "forbidden"). The hosting engine does the running; this service decides who may.
import { createSleepRule } from "./sleep-rule.ts";
import type { Config } from "../config.ts";
import type { AppReads } from "../db/app-reads.ts";
import type { Db } from "../db/client.ts";
import { ConflictError, InvalidRequestError, NotFoundError, QuotaExceededError } from "../errors.ts";
import { Prisma } from "../generated/sqlite/client.ts";
import { healthCheckProblems, toHealthCheckSpec, type HealthProbe } from "../hosting/health-settings.ts";
import { instancesBesideWeb, type Formation } from "../hosting/processes/workers.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import { appTopic } from "../hosting/state.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import type { AccountService } from "./accounts.ts";
import type { Acting, AuditService } from "./audit.ts";
import { appRules, normaliseRepo } from "./app-rules.ts";
import type { GitHubTokenStore } from "./github-tokens.ts";
import type { Page } from "./pages.ts";
import { uniqueViolation, validate } from "./validation.ts";

export interface CreateAppInput {
  slug: string;
  name?: string | null;
  description?: string | null;
  repo?: string | null;
  branch?: string | null;
  autoDeploy?: boolean | null;
}

export interface UpdateAppInput {
  name?: string | null;
  description?: string | null;
  repo?: string | null;
  branch?: string | null;
  autoDeploy?: boolean | null;
  previews?: boolean | null;
  instances?: number | null;
  /** Minutes without a request before the app sleeps; null: never. */
  sleepAfterMinutes?: number | null;
  /** Whether its other process types sleep with web. */
  sleepWorkers?: boolean | null;
  /** The app's own health check; null clears it. */
  healthcheck?: Record<string, unknown> | null;
}

export type AppRow = Awaited<ReturnType<Db["app"]["findUniqueOrThrow"]>>;

const GITHUB_TOKEN = /^[\x21-\x7e]{1,255}$/;

const NO_LEADER =
  "No Slipway instance leads the cluster right now: this status is the last one observed, apps keep serving, and deploys, restarts and stops wait until an instance leads again (within seconds when one is up).";

export function createAppService(deps: { db: Db; reads: AppReads; config: Config; engine: ClusterEngine; someoneLeads(): boolean; accounts: AccountService; pubsub: PubSub; githubTokens: GitHubTokenStore; audit: AuditService }) {
  const { db, engine, accounts } = deps;
  const sleepRule = createSleepRule({ db, config: deps.config, accounts });
  const notFound = (slug: string) => new NotFoundError(`You have no app "${slug}".`);
  /** What else goes with a deleted app (its databases), run once its processes are stopped. */
  const removeHooks: ((app: AppRow) => Promise<void>)[] = [];
  const publicUrl = new URL(deps.config.publicUrl);
  const appOrigin = { protocol: publicUrl.protocol, port: publicUrl.port ? `:${publicUrl.port}` : "" };

  async function mine(ownerId: string, slug: string): Promise<AppRow> {
    const app = typeof slug === "string" ? await db.app.findUnique({ where: { slug } }) : null;
    if (!app || app.ownerId !== ownerId) throw notFound(String(slug));
    return app;
  }

  return {
    mine,

    onRemove(hook: (app: AppRow) => Promise<void>): void {
      removeHooks.push(hook);
    },

    /**
     * Yields once now, then after every change of the app's status or deployments. `signal`: aborting ends it even
     * while it waits for a change.
     */
    async watch(ownerId: string, slug: string, signal?: AbortSignal): Promise<AsyncGenerator<void>> {
      const app = await mine(ownerId, slug);
      const changes = await deps.pubsub.subscribe(appTopic(app.id));
      signal?.addEventListener("abort", () => void changes.return?.(), { once: true });
      return (async function* () {
        try {
          yield;
          for await (const _ of changes) yield;
        } finally {
          await changes.return?.();
        }
      })();
    },

    runtime: (appId: string) => engine.runtime(appId),

    /** Said beside every app's status while no instance leads the cluster (the status is then the last one seen). */
    statusNote: (): string | null => (deps.someoneLeads() ? null : NO_LEADER),

    sandbox: () => engine.sandbox,

    /** A page of the owner's apps, newest first; `after` names the last app (slug) of the previous page. */
    list: (ownerId: string, page: Page) =>
      // The first page (nearly every read) through prepared SQL; later pages through Prisma's cursor.
      page.after
        ? db.app.findMany({ where: { ownerId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: page.first, cursor: { slug: page.after }, skip: 1 })
        : deps.reads.newest(ownerId, page.first),

    /** FORCED_SLEEP_AFTER_MINUTES applied to existing apps (the leader, once its engine booted). */
    async enforceSleepRule(): Promise<void> {
      const ids = await sleepRule.enforce();
      for (const app of await db.app.findMany({ where: { id: { in: ids } } })) await engine.sleepSettingChanged(app);
    },

    /** The public address of an app. */
    url: (slug: string): string => `${appOrigin.protocol}//${slug}.${deps.config.appsDomain}${appOrigin.port}/`,

    async create(ownerId: string, input: CreateAppInput): Promise<AppRow> {
      validate(input as unknown as Record<string, unknown>, { slug: appRules.slug, name: appRules.name, description: appRules.description, repo: appRules.repo, branch: appRules.branch });
      const quota = await accounts.quotaOf(ownerId);
      if (quota.usage.apps >= quota.maxApps) {
        throw new QuotaExceededError(`You have ${quota.usage.apps} of ${quota.maxApps} apps allowed. Delete one or ask for a higher limit.`);
      }
      try {
        const app = await db.app.create({
          data: {
            ownerId,
            slug: input.slug,
            name: input.name?.trim() || input.slug,
            description: input.description ?? "",
            repo: input.repo ? normaliseRepo(input.repo) : null,
            branch: input.branch ?? "main",
            autoDeploy: input.autoDeploy ?? false,
            sleepAfterMinutes: await sleepRule.forNewApp(ownerId),
          },
        });
        await engine.registerApp(app);
        if (app.sleepAfterMinutes !== null) await engine.sleepSettingChanged(app);
        return app;
      } catch (error) {
        if (uniqueViolation(error)) throw new ConflictError("This slug is taken. Choose another.", { slug: "This slug is taken. Choose another." });
        throw error;
      }
    },

    async update(ownerId: string, slug: string, input: UpdateAppInput): Promise<AppRow> {
      const app = await mine(ownerId, slug);
      validate(input as unknown as Record<string, unknown>, {
        name: appRules.name,
        description: appRules.description,
        repo: appRules.repo,
        branch: appRules.branch,
        instances: appRules.instances,
        sleepAfterMinutes: appRules.sleepAfterMinutes,
        sleepWorkers: appRules.sleepWorkers,
      });
      const data: Record<string, unknown> = {};
      if (input.name != null) data.name = input.name.trim();
      if (input.description != null) data.description = input.description;
      if (input.repo !== undefined) data.repo = input.repo ? normaliseRepo(input.repo) : null;
      if (input.branch != null) data.branch = input.branch;
      for (const key of ["autoDeploy", "previews", "instances", "sleepWorkers"] as const) if (input[key] != null) data[key] = input[key];
      if (input.sleepAfterMinutes !== undefined) data.sleepAfterMinutes = await sleepRule.check(ownerId, input.sleepAfterMinutes);
      if (input.healthcheck !== undefined) data.healthcheck = input.healthcheck === null ? Prisma.DbNull : healthCheckSetting(input.healthcheck);
      const instances = input.instances;
      if (instances != null && instances > app.instances) {
        const quota = await accounts.quotaOf(ownerId);
        // The other process types of its live release count too, running or not (PATCH …/formation scales them).
        const live = app.liveDeploymentId ? await db.deployment.findUnique({ where: { id: app.liveDeploymentId }, select: { processes: true } }) : null;
        const types = Object.keys((live?.processes as Record<string, unknown> | null) ?? {});
        const others = instancesBesideWeb(types, app.formation as Formation | null);
        if (instances + others > quota.maxInstances) {
          const besides = others ? ` besides its ${others} other process instance${others === 1 ? "" : "s"}` : "";
          throw new QuotaExceededError(`Your apps may run up to ${quota.maxInstances} instances each, not ${instances}${besides}. Scale to ${quota.maxInstances - others} or fewer, or ask for a higher maxInstances limit.`);
        }
      }
      const updated = await db.app.update({ where: { id: app.id }, data });
      // Running instances change in the background: new ones take traffic once they answer (App.processes tells).
      if (instances != null && instances !== app.instances) void engine.scale(updated, instances);
      // The checks read it on their next run: running instances need no restart.
      if (input.healthcheck !== undefined) await engine.settingsChanged(app, updated.healthcheck);
      if (updated.sleepAfterMinutes !== app.sleepAfterMinutes) await engine.sleepSettingChanged(updated);
      return updated;
    },

    /** The health check the app's instances get now: its own setting, else its live release's app.json, else the default. */
    async effectiveHealthcheck(app: AppRow): Promise<HealthProbe> {
      const live = app.liveDeploymentId ? await db.deployment.findUnique({ where: { id: app.liveDeploymentId }, select: { web: true } }) : null;
      return engine.health.resolve(app.healthcheck, live?.web);
    },

    /** Sets (or with null clears) the token the app's repository is cloned with; it is never shown back. */
    async setGitHubToken(ownerId: string, slug: string, token: string | null | undefined): Promise<AppRow> {
      const app = await mine(ownerId, slug);
      validate({ token }, { token: (v) => (v != null && (typeof v !== "string" || !GITHUB_TOKEN.test(v)) ? "Give a GitHub token (printable characters, no spaces), or null to remove it." : null) });
      const githubToken = token ? deps.githubTokens.encrypt(app.id, token) : null;
      return db.app.update({ where: { id: app.id }, data: { githubToken } });
    },

    /** The preview apps (pull requests) of an app, oldest first. */
    previews: (appId: string) => db.app.findMany({ where: { previewOfId: appId }, orderBy: { createdAt: "asc" } }),

    /** Stops the app, removes its releases, and deletes it with its env vars, logs, deployments and previews. */
    async remove(by: Acting, slug: string): Promise<AppRow> {
      const app = await mine(by.id, slug);
      const previews = await db.app.findMany({ where: { previewOfId: app.id } });
      for (const preview of previews) {
        await engine.remove(preview);
        for (const hook of removeHooks) await hook(preview);
      }
      await engine.remove(app);
      for (const hook of removeHooks) await hook(app);
      await db.app.delete({ where: { id: app.id } });
      await deps.audit.by(by, "app.delete", { type: "app", id: app.id }, { slug: app.slug, previews: previews.map((p) => p.slug) });
      return app;
    },

    async stop(ownerId: string, slug: string): Promise<AppRow> {
      const app = await mine(ownerId, slug);
      if (app.liveDeploymentId) await engine.stop(app);
      return db.app.findUniqueOrThrow({ where: { id: app.id } });
    },

    async restart(ownerId: string, slug: string): Promise<AppRow> {
      const app = await mine(ownerId, slug);
      const live = app.liveDeploymentId ? await db.deployment.findUnique({ where: { id: app.liveDeploymentId } }) : null;
      if (!live) throw new ConflictError("This app was never deployed: deploy it first.");
      await engine.restart(app, live);
      return db.app.findUniqueOrThrow({ where: { id: app.id } });
    },
  };
}

export type AppService = ReturnType<typeof createAppService>;

/** A healthcheck input checked (400 naming the field), its defaults filled in. */
function healthCheckSetting(input: Record<string, unknown>): Prisma.InputJsonObject {
  const problems = healthCheckProblems(input);
  if (problems.length) throw new InvalidRequestError(`Check ${problems.map((p) => p.field).join(", ")}: ${problems[0].message}`, Object.fromEntries(problems.map((p) => [p.field, p.message])));
  return { ...toHealthCheckSpec(input) };
}
