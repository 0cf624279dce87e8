// Deployments: from GitHub, zip uploads (staged by REST PUT /api/apps/:slug/deploy), rollbacks and cancels.
import { ConflictError, InvalidRequestError, NotFoundError } from "../../errors.ts";
import { builder } from "../builder.ts";

const WRITE = { "write:apps": true } as const;

const DeploymentStatusEnum = builder.enumType("DeploymentStatus", {
  values: {
    QUEUED: { description: "Waiting for the app's previous deployment to finish" },
    BUILDING: { description: "Fetching, detecting, building, release phase" },
    STARTING: { description: "The new release is starting; it takes traffic once it passes its health check" },
    LIVE: { description: "Serving now" },
    FAILED: { description: "Did not go live; the previous release kept serving" },
    SUPERSEDED: { description: "Replaced: a newer deployment went live after it, or came before it was built" },
    CANCELED: { description: "Canceled by its owner" },
  } as const,
});

const DeploymentSourceEnum = builder.enumType("DeploymentSource", { values: ["github", "zip"] as const });

const StepTiming = builder.objectRef<{ name: string; ms: number }>("DeploymentStep").implement({
  description: "A pipeline step that ran, and how long it took",
  fields: (t) => ({ name: t.exposeString("name"), ms: t.exposeFloat("ms") }),
});

export const Deployment = builder.prismaObject("Deployment", {
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.expose("status", { type: DeploymentStatusEnum }),
    source: t.expose("source", { type: DeploymentSourceEnum }),
    repo: t.exposeString("repo", { nullable: true }),
    branch: t.exposeString("branch", { nullable: true }),
    commit: t.exposeString("commit", { nullable: true, description: "The commit sha, once known (a branch deploy learns it when the source is fetched)" }),
    commitMessage: t.exposeString("commitMessage", { nullable: true, description: "The commit's subject line" }),
    builder: t.exposeString("builder", {
      nullable: true,
      description: "Which builder built the release: dockerfile, node, python, go, ruby, php, static or procfile; null until detected",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true }),
    error: t.exposeString("error", { nullable: true, description: "Why it failed, in words the user can act on" }),
    failureOutput: t.stringList({
      nullable: true,
      description: "For a release that failed to start: the last 20 lines its process wrote (stdout and stderr, in order); null otherwise",
      resolve: (d) => (d.failureOutput as string[] | null) ?? null,
    }),
    durationMs: t.int({
      nullable: true,
      description: "From the start of the build to going live (or failing)",
      resolve: (d) => (d.startedAt && d.finishedAt ? d.finishedAt.getTime() - d.startedAt.getTime() : null),
    }),
    steps: t.field({ type: [StepTiming], description: "The pipeline steps that ran, in order", resolve: (d) => (d.steps as { name: string; ms: number }[] | null) ?? [] }),
    rollbackOf: t.exposeString("rollbackOfId", { nullable: true, description: "The deployment whose release this one started again" }),
    rollbackable: t.boolean({ description: "Its release is kept on disk: it can be rolled back to", resolve: (d) => d.releasePath !== null }),
  }),
});

const DeployRepoInput = builder.inputType("DeployRepoInput", {
  fields: (t) => ({
    repo: t.string({ required: false, description: "owner/name or https://github.com/owner/name; default: the app's repo" }),
    branch: t.string({ required: false, description: "Default: the app's branch" }),
    commit: t.string({ required: false, description: "A full commit sha to deploy instead of the branch's newest commit" }),
  }),
});

const RollbackInput = builder.inputType("RollbackInput", {
  fields: (t) => ({ deployment: t.id({ required: false, description: "Default: the newest kept release before the live one" }) }),
});

builder.mutationFields((t) => ({
  deployUpload: t.withAuth(WRITE).prismaField({
    type: "Deployment",
    description: "Deploy a zip staged by PUT /api/apps/:slug/deploy (multipart part `file`); answers at once, QUEUED",
    args: { slug: t.arg.string(), upload: t.arg.id() },
    errors: { types: [NotFoundError] },
    resolve: (_query, _root, { slug, upload }, ctx) => ctx.services.deployments.deployUpload(ctx.viewer.user.id, slug, String(upload)),
  }),
  deployRepo: t.withAuth(WRITE).prismaField({
    type: "Deployment",
    description: "Deploy the app's GitHub repository (or the one given) at its branch or at a commit; answers at once, QUEUED",
    args: { slug: t.arg.string(), input: t.arg({ type: DeployRepoInput, required: false }) },
    errors: { types: [InvalidRequestError, NotFoundError] },
    resolve: (_query, _root, { slug, input }, ctx) => ctx.services.deployments.deployRepo(ctx.viewer.user.id, slug, input ?? {}),
  }),
  rollback: t.withAuth(WRITE).prismaField({
    type: "Deployment",
    description: "Start a kept release again, without building",
    args: { slug: t.arg.string(), input: t.arg({ type: RollbackInput, required: false }) },
    errors: { types: [InvalidRequestError, ConflictError] },
    resolve: (_query, _root, { slug, input }, ctx) => ctx.services.deployments.rollback(ctx.viewer.user.id, slug, input?.deployment ? String(input.deployment) : null),
  }),
  cancelDeployment: t.withAuth(WRITE).prismaField({
    type: "Deployment",
    description: "Cancel a queued or running deployment; the previous release keeps serving",
    args: { slug: t.arg.string(), id: t.arg.id() },
    errors: { types: [ConflictError] },
    resolve: (_query, _root, { slug, id }, ctx) => ctx.services.deployments.cancel(ctx.viewer.user.id, slug, String(id)),
  }),
}));
