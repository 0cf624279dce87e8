// Releases on disk: what a deployment that did not go live leaves (its release folder, its uploaded zip, and what
// the driver made of the release: an image), and the older releases, pruned past RELEASES_KEPT.
import fs from "node:fs/promises";
import type { EngineDeps } from "../engine.ts";
import type { HostingPaths } from "../paths.ts";
import { releaseRef } from "../replicas.ts";

export type ReleaseFilesDeps = Pick<EngineDeps, "db" | "driver" | "options" | "onError"> & { paths: HostingPaths };

export class ReleaseFiles {
  constructor(private readonly deps: ReleaseFilesDeps) {}

  /** What a deployment that did not build leaves: its release folder (a partial one) and its uploaded zip. */
  async removeSource(appId: string, deploymentId: string): Promise<void> {
    await fs.rm(this.deps.paths.release(appId, deploymentId), { recursive: true, force: true });
    await this.removeZip(appId, deploymentId);
  }

  /** What a deployment that did not go live leaves once it may have built: the same, and the image of its release. */
  async removeBuilt(app: { id: string; slug: string }, deploymentId: string): Promise<void> {
    await this.removeRelease(app, this.deps.paths.release(app.id, deploymentId));
    await this.removeZip(app.id, deploymentId);
  }

  /** Keeps the newest releases (and the live one) on disk; older ones can no longer be rolled back to. */
  async prune(appId: string): Promise<void> {
    const { db, options } = this.deps;
    const kept = await db.deployment.findMany({
      where: { appId, releasePath: { not: null } },
      orderBy: { createdAt: "desc" },
      select: { id: true, releasePath: true },
    });
    const app = await db.app.findUnique({ where: { id: appId }, select: { liveDeploymentId: true, slug: true } });
    const keep = kept.slice(0, options.releasesKept);
    const keepPaths = new Set(keep.map((d) => d.releasePath));
    for (const old of kept.slice(options.releasesKept)) {
      if (old.id === app?.liveDeploymentId) continue;
      await db.deployment.update({ where: { id: old.id }, data: { releasePath: null } });
      if (!keepPaths.has(old.releasePath) && app) await this.removeRelease({ id: appId, slug: app.slug }, old.releasePath!);
    }
  }

  /** A release's folder, and what the driver made of it (an image). */
  private async removeRelease(app: { id: string; slug: string }, dir: string): Promise<void> {
    await fs.rm(dir, { recursive: true, force: true });
    await this.deps.driver.removeRelease?.(app.id, releaseRef(app.slug, dir)).catch((error) => this.deps.onError(error, `removing the image of ${dir}`));
  }

  private async removeZip(appId: string, deploymentId: string): Promise<void> {
    await fs.rm(this.deps.paths.sourceZip(appId, deploymentId), { force: true });
  }
}
