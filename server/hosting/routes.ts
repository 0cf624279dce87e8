// The engine's answer to "where does <slug>.<APPS_DOMAIN> go?", kept in memory so the router never waits
// on the database: a live instance, a static release, or the app's status when nothing can answer.
import type { RouteTable, RouteTarget } from "./router/types.ts";

type Unavailable = Extract<RouteTarget, { kind: "unavailable" }>["status"];

export class MemoryRouteTable implements RouteTable {
  private readonly targets = new Map<string, RouteTarget>();

  lookup(slug: string): RouteTarget {
    return this.targets.get(slug) ?? { kind: "unknown" };
  }

  serve(slug: string, target: Extract<RouteTarget, { kind: "proxy" | "static" }>): void {
    this.targets.set(slug, target);
  }

  unavailable(slug: string, status: Unavailable): void {
    this.targets.set(slug, { kind: "unavailable", slug, status });
  }

  remove(slug: string): void {
    this.targets.delete(slug);
  }
}
