// What makes an app busy, as its sleep timer sees it: the last request the router (or another instance's router)
// passed to it, and what is open to it (WebSockets, responses under way). Kept in memory: a few map writes a request.

/**
 * One instance's recent activity, as it tells the leader (cluster): how long ago each app's last request came (an
 * age, not a time: the two machines' clocks need not agree), and its open sockets.
 */
export type ActivityReport = Array<[slug: string, sinceLastRequestMs: number, openSockets: number]>;

/** Another instance's open sockets count only while its reports keep coming (it may have died with them open). */
export const REPORT_KEPT_MS = 15_000;

export class Activity {
  private readonly lastRequest = new Map<string, number>();
  private readonly sockets = new Map<string, number>();
  /** Other instances' reports, by instance (the newest of each). */
  private readonly elsewhere = new Map<string, { receivedAt: number; apps: Map<string, { at: number; open: number }> }>();

  constructor(private readonly now: () => number) {}

  /** A request reached the app (or woke it). */
  touch(slug: string): void {
    this.lastRequest.set(slug, this.now());
  }

  /** A WebSocket to the app opened, or a request to it is under way: the app is busy until it closes. */
  opened(slug: string): void {
    this.sockets.set(slug, (this.sockets.get(slug) ?? 0) + 1);
  }

  closed(slug: string): void {
    const left = (this.sockets.get(slug) ?? 1) - 1;
    if (left > 0) this.sockets.set(slug, left);
    else this.sockets.delete(slug);
    this.touch(slug);
  }

  /** The last request seen here or reported by another instance; undefined: none since this process started. */
  lastRequestAt(slug: string): number | undefined {
    let last = this.lastRequest.get(slug);
    for (const report of this.elsewhere.values()) {
      const at = report.apps.get(slug)?.at;
      if (at !== undefined && (last === undefined || at > last)) last = at;
    }
    return last;
  }

  openSockets(slug: string): number {
    let open = this.sockets.get(slug) ?? 0;
    const now = this.now();
    for (const report of this.elsewhere.values()) if (now - report.receivedAt < REPORT_KEPT_MS) open += report.apps.get(slug)?.open ?? 0;
    return open;
  }

  /** What this instance saw, for the leader. */
  report(): ActivityReport {
    const now = this.now();
    const slugs = new Set([...this.lastRequest.keys(), ...this.sockets.keys()]);
    return [...slugs].map((slug) => {
      const last = this.lastRequest.get(slug);
      return [slug, last === undefined ? Number.MAX_SAFE_INTEGER : now - last, this.sockets.get(slug) ?? 0];
    });
  }

  /** Another instance's report replaces its previous one (`instance`: its cluster id, the same across its restarts). */
  merge(instance: string, report: ActivityReport): void {
    const now = this.now();
    this.elsewhere.set(instance, { receivedAt: now, apps: new Map(report.map(([slug, since, open]) => [slug, { at: now - since, open }])) });
  }

  /** An app removed or renamed: forget it. */
  forget(slug: string): void {
    this.lastRequest.delete(slug);
    this.sockets.delete(slug);
    for (const report of this.elsewhere.values()) report.apps.delete(slug);
  }
}
