// Every instance routes every app: the leader's routing table (which address answers for which app) is published to
// the followers after every change and every few seconds (a lost message, a follower that just joined), and each
// follower serves from its copy. Custom domains stay each instance's own (the domains service reads them from the
// database). A static site's files are on the leader's disk: a follower sends its requests to the leader's router.
import type { MemoryRouteTable } from "../../hosting/routes.ts";
import type { RouteTarget, Upstream } from "../../hosting/router/types.ts";
import type { PubSub } from "../pubsub/index.ts";

const ROUTES = "cluster:routes";
const REPUBLISH_MS = 5000;

export interface RouteCopyDeps {
  pubsub: PubSub;
  routes: MemoryRouteTable;
  leading(): boolean;
  /** Where the other instances reach this one's router. */
  address(): Upstream;
  onError(error: unknown, message: string): void;
}

export class RouteCopies {
  private subscription: AsyncIterableIterator<unknown> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The table last applied here (JSON): the same again (the periodic copy) changes nothing, pushes nothing to an edge. */
  private applied = "";

  constructor(private readonly deps: RouteCopyDeps) {}

  async start(): Promise<void> {
    const { routes, leading } = this.deps;
    routes.watch(() => {
      if (leading()) this.publish();
    });
    this.subscription = await this.deps.pubsub.subscribe(ROUTES);
    void this.follow(this.subscription);
    this.timer = setInterval(() => {
      if (leading()) this.publish();
    }, REPUBLISH_MS);
    this.timer.unref();
  }

  /** Sends the whole table to the followers (this instance leads). */
  publish(): void {
    this.deps.pubsub.publish(ROUTES, this.forFollowers()).catch((error: unknown) => this.deps.onError(error, "publishing the routing table to the followers"));
  }

  /**
   * The table as a follower serves it: a static site through this instance's router (watched: an edge in front sends
   * it through Slipway, as the leader's own configuration does, so every instance gives the edge the same one).
   */
  forFollowers(): [string, RouteTarget][] {
    const via = this.deps.address();
    return this.deps.routes.snapshot().apps.map(([slug, target]) => [slug, target.kind === "static" ? { kind: "proxy", upstreams: [{ ...via, id: "leader" }], watched: true } : target]);
  }

  /** A follower's copy of the leader's table, replaced when it differs. */
  apply(apps: [string, RouteTarget][]): void {
    const json = JSON.stringify(apps);
    if (json === this.applied) return;
    this.applied = json;
    this.deps.routes.replaceApps(apps);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.return?.();
  }

  private async follow(subscription: AsyncIterableIterator<unknown>): Promise<void> {
    try {
      for await (const apps of subscription) if (!this.deps.leading()) this.apply(apps as [string, RouteTarget][]);
    } catch (error) {
      this.deps.onError(error, "following the leader's routing table");
    }
  }
}
