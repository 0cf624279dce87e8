// Where the engine keeps things under DATA_DIR: each app's releases and data (its SQLite databases, kept across
// releases, seen only by its own processes), zips staged by a request, and a deployment's checked zip until its
// fetch step extracts it.
import path from "node:path";

export interface HostingPaths {
  apps: string;
  uploads: string;
  app(appId: string): string;
  release(appId: string, deploymentId: string): string;
  /** A zip deployment's upload, checked when it arrived, until its fetch step extracts it into the release. */
  sourceZip(appId: string, deploymentId: string): string;
  data(appId: string): string;
  /** The app's build cache (Go's module and build caches, pip's wheels), kept between builds. */
  cache(appId: string): string;
}

export function hostingPaths(dataDir: string): HostingPaths {
  const apps = path.join(dataDir, "apps");
  return {
    apps,
    uploads: path.join(dataDir, "uploads"),
    app: (appId) => path.join(apps, appId),
    release: (appId, deploymentId) => path.join(apps, appId, "releases", deploymentId),
    sourceZip: (appId, deploymentId) => path.join(apps, appId, "sources", `${deploymentId}.zip`),
    data: (appId) => path.join(apps, appId, "data"),
    cache: (appId) => path.join(apps, appId, "cache"),
  };
}
