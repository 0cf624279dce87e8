// What the router asks the engine for each request to an app host. The engine answers from memory
// (no database round trip per request): the router only proxies, serves static files, or shows a status page.

export type RouteTarget =
  | { kind: "proxy"; host: string; port: number }
  | { kind: "static"; root: string }
  /** The app exists but cannot answer: 503 with a page saying why (stopped, crashed, deploying, never deployed). */
  | { kind: "unavailable"; slug: string; status: "CREATED" | "DEPLOYING" | "STOPPED" | "CRASHED" | "FAILED" }
  | { kind: "unknown" };

export interface RouteTable {
  /** The target for an app slug (already extracted from the Host header). */
  lookup(slug: string): RouteTarget;
}
