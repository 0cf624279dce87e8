// What a GitHub webhook delivery does, once its signature has been checked over the raw bytes
// (http/github-webhook.ts):
// - each delivery id is acted on once (WebhookDelivery rows, pruned after RETENTION_MS);
// - `ping` does nothing; `push` to refs/heads/<branch> deploys commit `after` on every app with autoDeploy whose
//   repo (case-insensitively) and branch match; branch deletions and tags deploy nothing;
// - `pull_request` opened/reopened/synchronize deploys the head commit as preview app pr-<n>-<slug> of every app
//   with previews on (same owner, the parent's env vars copied each time), at most config.previewsPerApp per
//   app; `closed` deletes that preview. The head commit is fetched from the base repository, where GitHub keeps
//   it reachable as refs/pull/<n>/head even for a fork: the parent's token reads it, and no fork URL is trusted.
// Every deploy goes through the app's queue, so a burst of pushes builds the newest commit.
import type { AuditService } from "./audit.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { InvalidRequestError } from "../errors.ts";
import type { ClusterEngine } from "../platform/cluster/engine.ts";
import { isCommitSha } from "../hosting/source/git.ts";
import type { AppRow } from "./apps.ts";
import type { DeploymentService } from "./deployments.ts";
import { uniqueViolation } from "./validation.ts";

const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const PREVIEW_ACTIONS = new Set(["opened", "reopened", "synchronize"]);
const ZERO_SHA = /^0+$/;

export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
}

type Json = Record<string, any>;

export function createGitHubWebhookService(deps: {
  db: Db;
  config: Config;
  engine: ClusterEngine;
  deployments: DeploymentService;
  audit: AuditService;
  /** Drops a deleted preview app's databases (services/resources.ts). */
  removeDatabases: (app: { id: string; slug: string; ownerId: string }) => Promise<void>;
}) {
  const { db, engine, deployments } = deps;

  /** Apps whose repo is `fullName` (GitHub compares owner/name case-insensitively), with `where` on top. */
  async function appsOf(fullName: string, where: Record<string, unknown>): Promise<AppRow[]> {
    const apps = await db.app.findMany({ where: { previewOfId: null, repo: { not: null }, ...where }, orderBy: { createdAt: "asc" } });
    return apps.filter((app) => app.repo!.toLowerCase() === fullName.toLowerCase());
  }

  async function push(payload: Json): Promise<WebhookAnswer> {
    const { ref, after, deleted } = payload;
    const fullName = payload.repository?.full_name;
    if (typeof ref !== "string" || typeof after !== "string" || typeof fullName !== "string") {
      throw new InvalidRequestError("A push payload needs ref, after and repository.full_name.");
    }
    if (deleted === true || ZERO_SHA.test(after) || !ref.startsWith("refs/heads/")) return { status: 202, body: { deployments: [] } };
    if (!isCommitSha(after)) throw new InvalidRequestError("after is not a commit sha.");
    const branch = ref.slice("refs/heads/".length);
    const message = subject(payload.head_commit?.message);
    const created = [];
    for (const app of await appsOf(fullName, { autoDeploy: true, branch })) {
      const deployment = await deployments.deployGit(app, { repo: app.repo!, branch, commit: after, commitMessage: message });
      created.push({ app: app.slug, id: deployment.id });
    }
    return { status: 202, body: { deployments: created } };
  }

  async function pullRequest(payload: Json): Promise<WebhookAnswer> {
    const { action, number } = payload;
    const pr = payload.pull_request;
    const fullName = payload.repository?.full_name;
    if (typeof action !== "string" || !Number.isSafeInteger(number) || number < 1 || number >= 1e10 || typeof fullName !== "string" || typeof pr !== "object" || !pr) {
      throw new InvalidRequestError("A pull_request payload needs action, number, pull_request and repository.full_name.");
    }
    const parents = await appsOf(fullName, { previews: true });
    if (action === "closed") {
      const removed = [];
      for (const parent of parents) {
        const preview = await db.app.findUnique({ where: { slug: previewSlug(number, parent.slug) } });
        if (preview?.previewOfId !== parent.id) continue;
        await engine.remove(preview);
        await deps.removeDatabases(preview);
        await db.app.delete({ where: { id: preview.id } });
        // No user acted: GitHub closed the pull request (the delivery's signature proved it came from there).
        await deps.audit.record({ actor: null, action: "app.delete", target: { type: "app", id: preview.id }, details: { slug: preview.slug, via: "github", pullRequest: number } });
        removed.push(preview.slug);
      }
      return { status: 200, body: { deleted: removed } };
    }
    if (!PREVIEW_ACTIONS.has(action)) return { status: 200, body: { deployments: [] } };
    const sha = pr.head?.sha;
    if (typeof sha !== "string" || !isCommitSha(sha)) throw new InvalidRequestError("pull_request.head.sha is not a commit sha.");
    const created = [];
    const skipped = [];
    for (const parent of parents) {
      const preview = await previewOf(parent, number);
      if (!preview) {
        skipped.push({ app: previewSlug(number, parent.slug), reason: `${parent.slug} already has ${deps.config.previewsPerApp} preview apps.` });
        continue;
      }
      await copyEnv(parent.id, preview.id);
      const branch = typeof pr.head?.ref === "string" ? pr.head.ref.slice(0, 255) : `pull/${number}`;
      const deployment = await deployments.deployGit(preview, { repo: parent.repo!, branch, commit: sha, commitMessage: subject(pr.title) });
      created.push({ app: preview.slug, id: deployment.id });
    }
    return { status: 202, body: { deployments: created, ...(skipped.length ? { skipped } : {}) } };
  }

  /** The preview app of pull request `number`, created when new (null when the parent has all it may). */
  async function previewOf(parent: AppRow, number: number): Promise<AppRow | null> {
    const slug = previewSlug(number, parent.slug);
    const existing = await db.app.findUnique({ where: { slug } });
    if (existing) return existing.previewOfId === parent.id ? existing : null;
    if ((await db.app.count({ where: { previewOfId: parent.id } })) >= deps.config.previewsPerApp) return null;
    try {
      const app = await db.app.create({
        data: { slug, ownerId: parent.ownerId, previewOfId: parent.id, name: `${parent.name} #${number}`, repo: parent.repo, branch: parent.branch },
      });
      await engine.registerApp(app);
      return app;
    } catch (error) {
      if (uniqueViolation(error)) return db.app.findUnique({ where: { slug } });
      throw error;
    }
  }

  /** The parent's variables, except its databases' URLs (a pull request never gets the parent's data); the preview's own databases keep theirs. */
  async function copyEnv(fromAppId: string, toAppId: string): Promise<void> {
    const databaseKeys = async (appId: string) => (await db.resource.findMany({ where: { appId }, select: { envKey: true } })).map((r) => r.envKey);
    const [parentKeys, ownKeys] = await Promise.all([databaseKeys(fromAppId), databaseKeys(toAppId)]);
    const skipped = new Set([...parentKeys, ...ownKeys]);
    const vars = (await db.envVar.findMany({ where: { appId: fromAppId }, select: { key: true, value: true } })).filter((v) => !skipped.has(v.key));
    await db.$transaction([
      db.envVar.deleteMany({ where: { appId: toAppId, key: { notIn: ownKeys } } }),
      db.envVar.createMany({ data: vars.map((v) => ({ ...v, appId: toAppId })) }),
    ]);
  }

  return {
    /** Acts on a delivery whose signature is valid; malformed payloads are InvalidRequestError (400). */
    async receive(delivery: { event: unknown; id: unknown; body: Buffer }): Promise<WebhookAnswer> {
      const { event, id } = delivery;
      if (typeof event !== "string" || !event) throw new InvalidRequestError("The X-GitHub-Event header is missing.");
      if (typeof id !== "string" || !/^[\w-]{1,100}$/.test(id)) throw new InvalidRequestError("The X-GitHub-Delivery header is missing or malformed.");
      let payload: Json;
      try {
        payload = JSON.parse(delivery.body.toString("utf8"));
      } catch {
        throw new InvalidRequestError("The payload is not JSON: set the webhook's content type to application/json.");
      }
      if (!payload || typeof payload !== "object" || Array.isArray(payload)) throw new InvalidRequestError("The payload is not a JSON object.");
      await db.webhookDelivery.deleteMany({ where: { receivedAt: { lt: new Date(Date.now() - RETENTION_MS) } } });
      try {
        await db.webhookDelivery.create({ data: { id, event } });
      } catch (error) {
        if (uniqueViolation(error)) return { status: 200, body: { duplicate: true, deployments: [] } };
        throw error;
      }
      try {
        if (event === "ping") return { status: 200, body: { message: "pong" } };
        if (event === "push") return await push(payload);
        if (event === "pull_request") return await pullRequest(payload);
        return { status: 200, body: { ignored: event } };
      } catch (error) {
        // Not acted on: a redelivery (once fixed) must not be taken for a duplicate.
        await db.webhookDelivery.delete({ where: { id } }).catch(() => {});
        throw error;
      }
    },
  };
}

/** pr-<n>-<slug>: at most 3 + 10 + 1 + 40 characters for any pull request number below 10^10, a valid DNS label. */
export function previewSlug(number: number, parentSlug: string): string {
  return `pr-${number}-${parentSlug}`;
}

function subject(message: unknown): string | null {
  return typeof message === "string" ? message.split("\n")[0].slice(0, 500) : null;
}

export type GitHubWebhookService = ReturnType<typeof createGitHubWebhookService>;
