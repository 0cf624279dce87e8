// Where the engine keeps things under DATA_DIR: each app's releases and data (its SQLite databases, kept across
// releases, seen only by its own processes), and zips staged between upload and deploy.
import path from "node:path";

export interface HostingPaths {
  apps: string;
  uploads: string;
  app(appId: string): string;
  release(appId: string, deploymentId: string): string;
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
    data: (appId) => path.join(apps, appId, "data"),
    cache: (appId) => path.join(apps, appId, "cache"),
  };
}
