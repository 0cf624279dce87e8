// The engine's answer to "where does <slug>.<APPS_DOMAIN> go?", kept in memory so the router never waits
// on the database: a live instance, a static release, or the app's status when nothing can answer. Custom
// domains are kept here too, written only by the domains service (the one source an edge driver reads as well).
import type { DomainTarget, RouteTable, RouteTarget } from "./router/types.ts";

type Unavailable = Extract<RouteTarget, { kind: "unavailable" }>["status"];

export class MemoryRouteTable implements RouteTable {
  private readonly targets = new Map<string, RouteTarget>();
  private readonly domains = new Map<string, DomainTarget>();
  /** Pending domains by challenge token (the platform's own hosts answer challenges too). */
  private readonly pending = new Map<string, string>();

  lookup(slug: string): RouteTarget {
    return this.targets.get(slug) ?? { kind: "unknown" };
  }

  serve(slug: string, target: Extract<RouteTarget, { kind: "proxy" | "static" }>): void {
    this.targets.set(slug, target);
  }

  unavailable(slug: string, status: Unavailable): void {
    this.targets.set(slug, { kind: "unavailable", slug, status });
  }

  /** The app is gone: its target and its custom domains. */
  remove(slug: string): void {
    this.targets.delete(slug);
    for (const [hostname, target] of this.domains) if (target.slug === slug) this.removeDomain(hostname);
  }

  domain(hostname: string): DomainTarget | undefined {
    return this.domains.get(hostname);
  }

  /** Whether a domain is pending verification with this challenge token. */
  challenge(token: string): boolean {
    return this.pending.has(token);
  }

  /** Sets every custom domain at once (boot, periodic refresh), replacing what was there. */
  setDomains(domains: Iterable<[hostname: string, target: DomainTarget]>): void {
    this.domains.clear();
    this.pending.clear();
    for (const [hostname, target] of domains) this.setDomain(hostname, target);
  }

  setDomain(hostname: string, target: DomainTarget): void {
    this.removeDomain(hostname);
    this.domains.set(hostname, target);
    if (!target.verified) this.pending.set(target.token, hostname);
  }

  removeDomain(hostname: string): void {
    const old = this.domains.get(hostname);
    if (old && !old.verified) this.pending.delete(old.token);
    this.domains.delete(hostname);
  }
}
