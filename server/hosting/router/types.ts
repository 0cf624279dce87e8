// What the router asks the engine for each request to an app host. The engine answers from memory
// (no database round trip per request): the router only proxies, serves static files, or shows a status page.

/** One running instance of an app, as the router reaches it; `id` names it to the engine (health reports). */
export interface Upstream {
  host: string;
  port: number;
  id?: string;
}

export type RouteTarget =
  /**
   * The app's instances that take traffic (never empty): the router balances requests across them. `watched`: an
   * edge sends its requests through Slipway's router, which sees them (an app that sleeps when idle), or which alone
   * reaches them (a follower's copy of a static site, served by the leader's router).
   */
  | { kind: "proxy"; upstreams: readonly Upstream[]; watched?: true }
  | { kind: "static"; root: string }
  /** The app exists but cannot answer: 503 with a page saying why (stopped, crashed, deploying, never deployed). */
  | { kind: "unavailable"; slug: string; status: "CREATED" | "DEPLOYING" | "STOPPED" | "CRASHED" | "FAILED"; reason?: string }
  /** The app sleeps (no request for its sleepAfterMinutes): a request wakes it and is answered once it serves. */
  | { kind: "sleeping"; slug: string }
  | { kind: "unknown" };

/**
 * A custom hostname claimed by an app (services/domains.ts): verified ones are routed to the app like its own
 * host; pending ones answer only their ownership challenge, and the unknown-host page otherwise.
 */
export type DomainTarget = { slug: string; verified: true } | { slug: string; verified: false; token: string };

export interface RouteTable {
  /** The target for an app slug (already extracted from the Host header). */
  lookup(slug: string): RouteTarget;
  /** The custom domain a hostname (lowercase, no port, no trailing dot) is claimed as; undefined: the platform's. */
  domain?(hostname: string): DomainTarget | undefined;
}
