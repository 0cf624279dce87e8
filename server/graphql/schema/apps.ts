// Apps: the hosted applications a user owns, their status live, and stop/restart/delete.
// REST: /api/apps, /api/apps/:slug, /stop, /restart.
import { ConflictError, InvalidRequestError, NotFoundError, QuotaExceededError } from "../../errors.ts";
import { builder } from "../builder.ts";
import { acting } from "../context.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";
import { Deployment } from "./deployments.ts";
import { EnvVar } from "./env.ts";
import { HealthCheckInput } from "./health-checks.ts";

const READ = { "read:apps": true } as const;
const WRITE = { "write:apps": true } as const;

export const AppStatusEnum = builder.enumType("AppStatus", {
  values: {
    CREATED: { description: "Never deployed" },
    DEPLOYING: { description: "A deployment or a start is under way (a live release keeps serving meanwhile)" },
    RUNNING: { description: "Serving its live release" },
    CRASHED: { description: "Its process exited; Slipway restarts it with back-off" },
    STOPPED: { description: "Stopped by its owner" },
    FAILED: { description: "The last deployment failed and there is no release to serve" },
    SLEEPING: { description: "No request for its sleepAfterMinutes: its web processes stopped, and the next request starts them" },
  } as const,
});

const SandboxLayer = builder.objectRef<{ name: string; enforced: boolean; detail: string }>("SandboxLayer").implement({
  description: "One layer of isolation around the app's processes",
  fields: (t) => ({ name: t.exposeString("name"), enforced: t.exposeBoolean("enforced"), detail: t.exposeString("detail") }),
});

export const Sandbox = builder.objectRef<{ driver: string; layers: { name: string; enforced: boolean; detail: string }[] }>("Sandbox").implement({
  description: "How the app's processes are isolated on this platform",
  fields: (t) => ({ driver: t.exposeString("driver"), layers: t.expose("layers", { type: [SandboxLayer] }) }),
});

const GitHubWebhookInfo = builder.objectRef<{ payloadUrl: string; secretConfigured: boolean }>("GitHubWebhookInfo").implement({
  fields: (t) => ({
    payloadUrl: t.exposeString("payloadUrl"),
    secretConfigured: t.exposeBoolean("secretConfigured", { description: "GITHUB_WEBHOOK_SECRET is set (without it every delivery is refused)" }),
  }),
});

export const App = builder.prismaObject("App", {
  description: "An application hosted at <slug>.<APPS_DOMAIN>",
  fields: (t) => ({
    slug: t.exposeString("slug"),
    name: t.exposeString("name"),
    description: t.exposeString("description"),
    status: t.expose("status", { type: AppStatusEnum }),
    statusNote: t.string({
      nullable: true,
      description: "Set while no instance of a cluster leads: the status is then the last one observed, and deploys, restarts and stops wait",
      resolve: (_app, _args, ctx) => ctx.services.apps.statusNote(),
    }),
    url: t.string({ description: "Where the app answers", resolve: (app, _args, ctx) => ctx.services.apps.url(app.slug) }),
    repo: t.exposeString("repo", { nullable: true, description: "GitHub repository owner/name" }),
    branch: t.exposeString("branch"),
    autoDeploy: t.exposeBoolean("autoDeploy", { description: "Deploy on every push to the branch" }),
    previews: t.exposeBoolean("previews", { description: "Deploy pull requests as preview apps" }),
    instances: t.exposeInt("instances", { description: "How many instances of the web process should run (PATCH it, or scaleProcesses; with the other process types at most Quota.maxInstances)" }),
    sleepAfterMinutes: t.exposeInt("sleepAfterMinutes", {
      nullable: true,
      description: "Minutes without a request after which the app's web processes stop (status SLEEPING) until the next request, which is held while they start; null: never",
    }),
    sleepWorkers: t.exposeBoolean("sleepWorkers", { description: "Whether the other process types sleep with web (they keep running by default)" }),
    hasGitHubToken: t.boolean({ description: "A GitHub token is set for cloning the repository (it is never shown back)", resolve: (app) => app.githubToken !== null }),
    previewOf: t.relation("previewOf", { nullable: true, description: "For a preview app (pr-<n>-<slug>): the app whose pull request it deploys" }),
    previewApps: t.relation("previewApps", { description: "The app's preview apps, one per open pull request", query: { orderBy: { createdAt: "asc" } } }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    env: t.field({
      type: [EnvVar],
      authScopes: READ,
      description: "Environment variables, sorted by key",
      resolve: (app, _args, ctx) => ctx.db.envVar.findMany({ where: { appId: app.id }, orderBy: { key: "asc" } }),
    }),
    resources: t.relation("resources", { authScopes: READ, description: "The app's databases, oldest first", query: { orderBy: { createdAt: "asc" } } }),
    deployments: t.field({
      type: [Deployment],
      description: "Newest first",
      args: { limit: t.arg.int({ required: false, description: "1–100, default 20" }) },
      resolve: (app, { limit }, ctx) => ctx.services.deployments.list(app.id, Math.min(Math.max(limit ?? 20, 1), 100)),
    }),
    liveDeployment: t.relation("liveDeployment", { nullable: true, description: "The deployment serving now" }),
    restarts: t.int({
      description: "Crashes in a row since the last healthy period (resets after it, and on a new release)",
      resolve: async (app, _args, ctx) => (await ctx.services.apps.runtime(app.id)).restarts,
    }),
    sandbox: t.field({ type: Sandbox, description: "The isolation enforced around this app's processes", resolve: (_app, _args, ctx) => ctx.services.apps.sandbox() }),
  }),
});

const CreateAppInput = builder.inputType("CreateAppInput", {
  fields: (t) => ({
    slug: t.string({ description: "3–40 lowercase letters, digits or hyphens; the app's host name, unique on the platform" }),
    name: t.string({ required: false, description: "Defaults to the slug" }),
    description: t.string({ required: false }),
    repo: t.string({ required: false, description: "owner/name or https://github.com/owner/name" }),
    branch: t.string({ required: false, description: "Default main" }),
    autoDeploy: t.boolean({ required: false }),
  }),
});

const UpdateAppInput = builder.inputType("UpdateAppInput", {
  fields: (t) => ({
    name: t.string({ required: false }),
    description: t.string({ required: false }),
    repo: t.string({ required: false }),
    branch: t.string({ required: false }),
    autoDeploy: t.boolean({ required: false }),
    previews: t.boolean({ required: false }),
    instances: t.int({ required: false }),
    sleepAfterMinutes: t.int({ required: false, description: "1–10080 (a week); null: the app never sleeps" }),
    sleepWorkers: t.boolean({ required: false }),
    healthcheck: t.field({ type: HealthCheckInput, required: false, description: "The app's own health check; null clears it (app.json's, else the default, applies)" }),
  }),
});

builder.queryFields((t) => ({
  // A plain field, not a prismaField: the list is read by the app service (prepared SQL, kept rows), which has
  // no use for a Prisma selection, and mapping the GraphQL selection onto one cost every request. Relations
  // selected on the apps load through the Prisma plugin's batched loaders either way.
  apps: t.withAuth(READ).field({
    type: [App],
    description: "Your apps, newest first, a page at a time",
    args: pageArgs(t.arg, "slug"),
    complexity: pageCost,
    resolve: (_root, args, ctx) => ctx.services.apps.list(ctx.viewer.user.id, pageOf(args)),
  }),
  githubWebhook: t.withAuth(READ).field({
    type: GitHubWebhookInfo,
    description: "Where to point a GitHub repository's webhook (content type application/json, the push and pull request events)",
    resolve: (_root, _args, ctx) => ({ payloadUrl: `${ctx.config.publicUrl}/api/github/webhook`, secretConfigured: !!ctx.config.githubWebhookSecret }),
  }),
  app: t.withAuth(READ).prismaField({
    type: "App",
    description: "One of your apps (not_found for anyone else's)",
    args: { slug: t.arg.string() },
    resolve: (_query, _root, { slug }, ctx) => ctx.services.apps.mine(ctx.viewer.user.id, slug),
  }),
}));

builder.mutationFields((t) => ({
  createApp: t.withAuth(WRITE).prismaField({
    type: "App",
    args: { input: t.arg({ type: CreateAppInput }) },
    errors: { types: [InvalidRequestError, ConflictError, QuotaExceededError] },
    resolve: (_query, _root, { input }, ctx) => ctx.services.apps.create(ctx.viewer.user.id, input),
  }),
  updateApp: t.withAuth(WRITE).prismaField({
    type: "App",
    args: { slug: t.arg.string(), input: t.arg({ type: UpdateAppInput }) },
    errors: { types: [InvalidRequestError, NotFoundError, QuotaExceededError] },
    resolve: (_query, _root, { slug, input }, ctx) => ctx.services.apps.update(ctx.viewer.user.id, slug, input),
  }),
  scaleApp: t.withAuth(WRITE).prismaField({
    type: "App",
    description: "Run this many instances of the app (updateApp's `instances`): new ones take traffic once they answer, removed ones drain first",
    args: { slug: t.arg.string(), instances: t.arg.int() },
    errors: { types: [InvalidRequestError, NotFoundError, QuotaExceededError] },
    resolve: (_query, _root, { slug, instances }, ctx) => ctx.services.apps.update(ctx.viewer.user.id, slug, { instances }),
  }),
  deleteApp: t.withAuth(WRITE).boolean({
    description: "Stops the app and deletes it with its releases, env vars, logs and databases",
    args: { slug: t.arg.string() },
    resolve: async (_root, { slug }, ctx) => !!(await ctx.services.apps.remove(acting(ctx), slug)),
  }),
  setAppGitHubToken: t.withAuth(WRITE).prismaField({
    type: "App",
    description: "Set the GitHub token the app's (private) repository is cloned with, or null to remove it; never shown back",
    args: { slug: t.arg.string(), token: t.arg.string({ required: false }) },
    errors: { types: [InvalidRequestError, NotFoundError] },
    resolve: (_query, _root, { slug, token }, ctx) => ctx.services.apps.setGitHubToken(ctx.viewer.user.id, slug, token),
  }),
  stopApp: t.withAuth(WRITE).prismaField({
    type: "App",
    args: { slug: t.arg.string() },
    resolve: (_query, _root, { slug }, ctx) => ctx.services.apps.stop(ctx.viewer.user.id, slug),
  }),
  restartApp: t.withAuth(WRITE).prismaField({
    type: "App",
    description: "Starts the live release again; a fresh instance takes over once it answers (conflict when never deployed)",
    args: { slug: t.arg.string() },
    errors: { types: [ConflictError] },
    resolve: (_query, _root, { slug }, ctx) => ctx.services.apps.restart(ctx.viewer.user.id, slug),
  }),
}));

builder.subscriptionField("app", (t) =>
  t.withAuth(READ).prismaField({
    type: "App",
    description: "The app now, and again whenever its status or deployments change",
    args: { slug: t.arg.string() },
    subscribe: (_root, { slug }, ctx) => ctx.services.apps.watch(ctx.viewer.user.id, slug),
    resolve: (_query, _root, { slug }, ctx) => ctx.services.apps.mine(ctx.viewer.user.id, slug),
  }),
);
