// Deployments of an app: from an uploaded zip, a rollback to a kept release, a cancel. Each is queued on the
// engine and answered at once (202): the build log and status tell the rest.
import type { Db } from "../db/client.ts";
import { ConflictError, InvalidRequestError, NotFoundError } from "../errors.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import { isCommitSha } from "../hosting/source/git.ts";
import { checkZip } from "../hosting/source/zip.ts";
import { keepFile } from "../hosting/source/keep-file.ts";
import { appRules, normaliseRepo } from "./app-rules.ts";
import type { AppRow, AppService } from "./apps.ts";
import { validate } from "./validation.ts";
import type { UploadService } from "./uploads.ts";

export interface DeployRepoInput {
  repo?: string | null;
  branch?: string | null;
  commit?: string | null;
}

/** What a push or pull request deploys: the app's repository at one commit. */
export interface GitTarget {
  repo: string;
  branch: string;
  commit: string;
  commitMessage?: string | null;
}

const commitRule = (v: unknown) => (v != null && (typeof v !== "string" || !isCommitSha(v.toLowerCase())) ? "Give the full commit sha (40 hexadecimal characters)." : null);

export type DeploymentRow = Awaited<ReturnType<Db["deployment"]["findUniqueOrThrow"]>>;

const FINISHED = new Set(["LIVE", "FAILED", "SUPERSEDED", "CANCELED"]);

export function createDeploymentService(deps: { db: Db; apps: AppService; engine: ClusterEngine; uploads: UploadService }) {
  const { db, apps, engine, uploads } = deps;

  async function ofApp(appId: string, id: unknown): Promise<DeploymentRow> {
    const deployment = typeof id === "string" ? await db.deployment.findUnique({ where: { id } }) : null;
    if (!deployment || deployment.appId !== appId) throw new NotFoundError(`This app has no deployment "${String(id)}".`);
    return deployment;
  }

  /** Queues a deployment of `target` on the app (the webhook's pushes and pull requests come through here too). */
  async function deployGit(app: AppRow, target: Omit<GitTarget, "commit"> & { commit: string | null }): Promise<DeploymentRow> {
    const deployment = await db.deployment.create({
      data: { appId: app.id, source: "github", repo: target.repo, branch: target.branch, commit: target.commit, commitMessage: target.commitMessage ?? null },
    });
    await engine.received(app, deployment.id, `Deploying ${target.repo} ${target.commit ? `commit ${target.commit}` : `branch ${target.branch}`}.`);
    await engine.enqueue(app, deployment.id);
    return deployment;
  }

  return {
    list: (appId: string, limit: number) =>
      db.deployment.findMany({ where: { appId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit }),

    latest: (appId: string) => db.deployment.findFirst({ where: { appId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] }),

    ofApp,

    /**
     * Deploys a zip staged by the upload route. The zip is checked here (every entry inflated), so a bad one is
     * refused (400 naming the entry) with no deployment left behind; the deployment's fetch step extracts it.
     */
    async deployUpload(ownerId: string, slug: string, uploadId: string): Promise<DeploymentRow> {
      const app = await apps.mine(ownerId, slug);
      const deployment = await db.deployment.create({ data: { appId: app.id, source: "zip" } });
      let summary;
      try {
        summary = await uploads.consume(ownerId, uploadId, async (zip) => {
          const checked = await checkZip(zip);
          await keepFile(zip, engine.paths.sourceZip(app.id, deployment.id));
          return checked;
        });
      } catch (error) {
        await db.deployment.delete({ where: { id: deployment.id } });
        throw error;
      }
      const unwrapped = summary.unwrapped ? `, unwrapped from its top folder ${summary.unwrapped}/` : "";
      await engine.received(app, deployment.id, `Received a zip: ${summary.files} files, ${summary.bytes} bytes${unwrapped}.`);
      await engine.enqueue(app, deployment.id);
      return deployment;
    },

    /**
     * Deploys the app's repository (or the one given) at its branch (or the one given), or at one commit.
     * The repository is fetched by the pipeline; a branch or commit that does not exist fails the deployment.
     */
    async deployRepo(ownerId: string, slug: string, input: DeployRepoInput = {}): Promise<DeploymentRow> {
      const app = await apps.mine(ownerId, slug);
      validate(input as Record<string, unknown>, { repo: appRules.repo, branch: appRules.branch, commit: commitRule });
      const repo = input.repo ? normaliseRepo(input.repo) : app.repo;
      if (!repo) throw new InvalidRequestError("This app has no repository: give one (owner/name), or set the app's repo.", { repo: "Required: the app has none." });
      return deployGit(app, { repo, branch: input.branch ?? app.branch, commit: input.commit?.toLowerCase() ?? null });
    },

    deployGit,

    /** Starts a kept release again: the given deployment's, or by default the newest one before the live one. */
    async rollback(ownerId: string, slug: string, deploymentId?: string | null): Promise<DeploymentRow> {
      const app = await apps.mine(ownerId, slug);
      const target = deploymentId
        ? await ofApp(app.id, deploymentId)
        : await db.deployment.findFirst({
            where: { appId: app.id, releasePath: { not: null }, id: { not: app.liveDeploymentId ?? "" } },
            orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          });
      if (!target) throw new ConflictError("There is no earlier release to roll back to.");
      if (!target.releasePath) {
        throw new InvalidRequestError("That deployment's release is not kept (it failed, or it is older than the kept releases). Pick another.", {
          deployment: "No kept release.",
        });
      }
      const deployment = await db.deployment.create({
        data: { appId: app.id, source: target.source, repo: target.repo, branch: target.branch, commit: target.commit, builder: target.builder, rollbackOfId: target.id },
      });
      await engine.enqueue(app, deployment.id);
      return deployment;
    },

    async cancel(ownerId: string, slug: string, deploymentId: string): Promise<DeploymentRow> {
      const app = await apps.mine(ownerId, slug);
      const deployment = await ofApp(app.id, deploymentId);
      if (FINISHED.has(deployment.status) || !(await engine.cancel(app.id, deployment.id))) {
        throw new ConflictError("This deployment has already finished.");
      }
      return db.deployment.findUniqueOrThrow({ where: { id: deployment.id } });
    },
  };
}

export type DeploymentService = ReturnType<typeof createDeploymentService>;
