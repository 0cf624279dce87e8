// An edge: a reverse proxy in front of Slipway and the apps (EDGE=caddy) that serves every app host, custom
// domain and the platform's own host over HTTPS. It is configured from the engine's route table, whole.
import type { RouteSnapshot } from "../../hosting/routes.ts";
import type { EdgeAddresses } from "../cluster/lease.ts";
import type { EdgeCdnFiles } from "./caddy-cdn.ts";

export type { EdgeAddresses };

export interface EdgeDriver {
  readonly name: string;
  /** Starts what the driver runs beside the edge (Caddy's DNS source of upstreams); where the edge reaches this instance. */
  start(): Promise<EdgeAddresses>;
  /** Configures the edge to route exactly as the snapshot says (atomic: no request sees half of it). */
  apply(snapshot: RouteSnapshot): Promise<void>;
  /** False when the edge no longer has Slipway's configuration (restarted without it) or does not answer. */
  holdsConfig(): Promise<boolean>;
  /** A custom domain's certificate as the API shows it ("none" when the edge does not serve it over HTTPS). */
  certificate(hostname: string, verified: boolean): string;
  /** Stops what the driver runs beside the edge (Caddy's DNS source of upstreams); the edge keeps routing. */
  close(): Promise<void>;
}

/** Where the edge sends what Slipway answers itself (its own host, status pages, static sites, challenges). */
export interface EdgeOptions {
  appsDomain: string;
  /** PUBLIC_URL's hostname: routed to Slipway. */
  platformHostname: string;
  /** Slipway's own listening address, as the edge dials it. */
  slipway: { host: string; port: number };
  /** This instance's own folder (DATA_DIR): what its next boot reuses. */
  stateDir: string;
  /** The cluster's other live instances, which the edge sends to as well (none for a lone instance). */
  peers(): readonly EdgeAddresses[];
  /** Local CDN files the edge sends itself (Slipway answering their lookups); unset: Slipway sends them. */
  cdnFiles?: EdgeCdnFiles;
}
