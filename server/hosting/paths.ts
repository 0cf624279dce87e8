// Where the engine keeps things: under DATA_DIR, each app's releases and build cache and zips staged by a request;
// under SHARED_DATA_DIR (DATA_DIR unless set; every instance of a cluster sees the same), each app's data (its SQLite
// databases, kept across releases, seen only by its own processes) and a deployment's checked zip until its fetch
// step extracts it (a follower receives it, the leader builds it).
import path from "node:path";

export interface HostingPaths {
  apps: string;
  uploads: string;
  app(appId: string): string;
  /** The app's folder under SHARED_DATA_DIR (the same as app() unless that is set). */
  sharedApp(appId: string): string;
  release(appId: string, deploymentId: string): string;
  /** A zip deployment's upload, checked when it arrived, until its fetch step extracts it into the release. */
  sourceZip(appId: string, deploymentId: string): string;
  data(appId: string): string;
  /** The app's build cache (Go's module and build caches, pip's wheels), kept between builds. */
  cache(appId: string): string;
}

export function hostingPaths(dataDir: string, sharedDataDir = dataDir): HostingPaths {
  const apps = path.join(dataDir, "apps");
  const shared = path.join(sharedDataDir, "apps");
  return {
    apps,
    uploads: path.join(dataDir, "uploads"),
    app: (appId) => path.join(apps, appId),
    sharedApp: (appId) => path.join(shared, appId),
    release: (appId, deploymentId) => path.join(apps, appId, "releases", deploymentId),
    sourceZip: (appId, deploymentId) => path.join(shared, appId, "sources", `${deploymentId}.zip`),
    data: (appId) => path.join(shared, appId, "data"),
    cache: (appId) => path.join(apps, appId, "cache"),
  };
}
