// The engine's answer to "where does <slug>.<APPS_DOMAIN> go?", kept in memory so the router never waits
// on the database: a live instance, a static release, or the app's status when nothing can answer. Custom
// domains are kept here too, written only by the domains service (the one source an edge driver reads as well).
// With an edge (EDGE=caddy), every change is pushed to it as a whole snapshot; `flush()` resolves once the edge
// has every change made so far, so a switch, a stop or a domain change reaches it before the API answers.
import type { DomainTarget, RouteTable, RouteTarget } from "./router/types.ts";

/** Everything the table holds, for an edge to build its whole configuration from. */
export interface RouteSnapshot {
  apps: Array<[slug: string, target: RouteTarget]>;
  domains: Array<[hostname: string, target: DomainTarget]>;
}

/** Applies a whole snapshot to the edge; rejects when the edge did not take it. */
export type EdgeSync = (snapshot: RouteSnapshot) => Promise<void>;

type Unavailable = Extract<RouteTarget, { kind: "unavailable" }>["status"];

export class MemoryRouteTable implements RouteTable {
  private readonly targets = new Map<string, RouteTarget>();
  private readonly domains = new Map<string, DomainTarget>();
  /** Pending domains by challenge token (the platform's own hosts answer challenges too). */
  private readonly pending = new Map<string, string>();
  /** Apps that sleep when idle (sleepsWhenIdle()). */
  private readonly watched = new Set<string>();
  private edge: { sync: EdgeSync; onError(error: unknown): void } | null = null;
  /** Bumped by every change; `synced`: the newest generation the edge has. */
  private generation = 0;
  private synced = 0;
  private syncing: Promise<void> | null = null;
  private flushQueued = false;
  /** Told after each batch of changes (the cluster's leader publishes its table to the followers). */
  private readonly watchers: (() => void)[] = [];
  /** Waiting for the next batch of changes (leaves()). */
  private readonly nextChange: (() => void)[] = [];

  /** From now on every change is pushed to the edge (a first push of everything starts now). */
  attachEdge(sync: EdgeSync, onError: (error: unknown) => void): Promise<void> {
    this.edge = { sync, onError };
    this.synced = -1;
    return this.flush();
  }

  detachEdge(): void {
    this.edge = null;
  }

  snapshot(): RouteSnapshot {
    return { apps: [...this.targets], domains: [...this.domains] };
  }

  /**
   * Resolves once the edge has every change made before the call (at once without an edge). Pushes are whole
   * snapshots, one at a time: changes made during a push go out together in the next. A failed push is
   * reported to onError, never thrown (the caller's change is in the database; the next flush retries).
   */
  async flush(): Promise<void> {
    const wanted = this.generation;
    while (this.edge && this.synced < wanted) {
      if (this.syncing) {
        await this.syncing;
        continue;
      }
      const edge = this.edge;
      const generation = this.generation;
      let failed = false;
      this.syncing = edge
        .sync(this.snapshot())
        .then(
          () => {
            this.synced = Math.max(this.synced, generation);
          },
          (error: unknown) => {
            failed = true;
            edge.onError(error);
          },
        )
        .finally(() => {
          this.syncing = null;
        });
      await this.syncing;
      if (failed) return;
    }
  }

  /** Pushes everything again (the edge lost its configuration); resolves like flush(). */
  resync(): Promise<void> {
    this.generation += 1;
    return this.flush();
  }

  /** Whether the edge has every change so far (false while a push is due, or after a failed one). */
  get inSync(): boolean {
    return this.edge !== null && this.synced >= this.generation;
  }

  /** Resolves once the app's target is no longer of `kind` (a woken app's copy arriving), or after `withinMs`. */
  async leaves(slug: string, kind: RouteTarget["kind"], withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    while (this.lookup(slug).kind === kind && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, deadline - Date.now());
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.nextChange.push(done);
      });
    }
  }

  /** `listener` runs after each batch of changes from now on. */
  watch(listener: () => void): void {
    this.watchers.push(listener);
  }

  /** Every app's target at once, as another instance's table has them (a follower's copy of the leader's). */
  replaceApps(apps: Iterable<[slug: string, target: RouteTarget]>): void {
    this.targets.clear();
    for (const [slug, target] of apps) this.targets.set(slug, target);
    this.changed();
  }

  private changed(): void {
    this.generation += 1;
    // After the current synchronous batch (setDomains, setDomain's remove-then-set): never half of it.
    if ((this.edge || this.watchers.length || this.nextChange.length) && !this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => {
        this.flushQueued = false;
        void this.flush();
        for (const watcher of this.watchers) watcher();
        for (const wake of this.nextChange.splice(0)) wake();
      });
    }
  }

  lookup(slug: string): RouteTarget {
    return this.targets.get(slug) ?? { kind: "unknown" };
  }

  serve(slug: string, target: Extract<RouteTarget, { kind: "proxy" | "static" }>): void {
    if (target.kind === "proxy") {
      const { watched: _, ...plain } = target;
      target = this.watched.has(slug) ? { ...plain, watched: true } : plain;
    }
    this.targets.set(slug, target);
    this.changed();
  }

  /** Nothing answers for the app; `reason` says why a deployment failed (the router's page shows it). */
  unavailable(slug: string, status: Unavailable, reason?: string): void {
    this.targets.set(slug, { kind: "unavailable", slug, status, ...(reason ? { reason } : {}) });
    this.changed();
  }

  /** Nothing runs: the app's stopped (or failed) page, or, sleeping, a target that wakes it on the next request. */
  stopped(slug: string, status: "STOPPED" | "FAILED" | "SLEEPING"): void {
    if (status !== "SLEEPING") return this.unavailable(slug, status);
    this.targets.set(slug, { kind: "sleeping", slug });
    this.changed();
  }

  /**
   * Whether the app sleeps when idle (sleepAfterMinutes set): its proxied target is marked `watched`, so an edge
   * sends its requests through the router, which counts them (copies of this table carry the mark).
   */
  sleepsWhenIdle(slug: string, sleeps: boolean): void {
    if (sleeps === this.watched.has(slug)) return;
    if (sleeps) this.watched.add(slug);
    else this.watched.delete(slug);
    const target = this.targets.get(slug);
    if (target?.kind === "proxy") this.serve(slug, target);
  }

  /** The app is gone: its target and its custom domains. */
  remove(slug: string): void {
    this.targets.delete(slug);
    this.watched.delete(slug);
    this.changed();
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
    this.changed();
  }

  setDomain(hostname: string, target: DomainTarget): void {
    this.removeDomain(hostname);
    this.domains.set(hostname, target);
    if (!target.verified) this.pending.set(target.token, hostname);
    this.changed();
  }

  removeDomain(hostname: string): void {
    const old = this.domains.get(hostname);
    if (old && !old.verified) this.pending.delete(old.token);
    this.domains.delete(hostname);
    this.changed();
  }
}
