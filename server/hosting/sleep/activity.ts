// What makes an app busy, as its sleep timer sees it: the last request the router (or another instance's router)
// passed to it, and the WebSockets open to it. Kept in memory: one map write per request.

/** One instance's recent activity, as it tells the leader (cluster): each app's last request and open sockets. */
export type ActivityReport = Array<[slug: string, lastRequestAt: number, openSockets: number]>;

export class Activity {
  private readonly lastRequest = new Map<string, number>();
  private readonly sockets = new Map<string, number>();
  /** Other instances' reports, by instance (the newest of each). */
  private readonly elsewhere = new Map<string, Map<string, { at: number; open: number }>>();

  constructor(private readonly now: () => number) {}

  /** A request reached the app (or woke it). */
  touch(slug: string): void {
    this.lastRequest.set(slug, this.now());
  }

  /** A WebSocket to the app opened: the app is busy until it closes. */
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
      const at = report.get(slug)?.at;
      if (at !== undefined && (last === undefined || at > last)) last = at;
    }
    return last;
  }

  openSockets(slug: string): number {
    let open = this.sockets.get(slug) ?? 0;
    for (const report of this.elsewhere.values()) open += report.get(slug)?.open ?? 0;
    return open;
  }

  /** What this instance saw, for the leader. */
  report(): ActivityReport {
    const slugs = new Set([...this.lastRequest.keys(), ...this.sockets.keys()]);
    return [...slugs].map((slug) => [slug, this.lastRequest.get(slug) ?? 0, this.sockets.get(slug) ?? 0]);
  }

  /** Another instance's report replaces its previous one. */
  merge(instance: string, report: ActivityReport): void {
    this.elsewhere.set(instance, new Map(report.map(([slug, at, open]) => [slug, { at, open }])));
  }

  /** An app removed or renamed: forget it. */
  forget(slug: string): void {
    this.lastRequest.delete(slug);
    this.sockets.delete(slug);
    for (const report of this.elsewhere.values()) report.delete(slug);
  }
}
