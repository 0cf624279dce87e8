// Forwards the lines this instance's log store commits to the app's drains (every instance forwards what it
// appends: app processes on the leader, runs wherever they run). Each app's drains are loaded once and cached,
// reloaded when the drains service announces a change (pub/sub) or after RELOAD_MS; an app without drains costs
// one map lookup per batch. Every REPORT_MS the drains' counts are added to their rows (summed over instances),
// and a drain that dropped lines says so once in the app's log.
import { readFileSync } from "node:fs";
import type { Db } from "../db/client.ts";
import type { Clock } from "../hosting/clock.ts";
import type { LogLineRecord, LogStore } from "../hosting/logs/store.ts";
import type { OutboundGuard } from "../platform/outbound.ts";
import type { PubSub } from "../platform/pubsub/index.ts";
import { Drain, type DrainTransport } from "./drain.ts";
import { HttpsTransport } from "./https-transport.ts";
import { SyslogTransport } from "./syslog-transport.ts";

export const DRAINS_CHANGED = "drains:changed";
const RELOAD_MS = 60_000;
export const REPORT_MS = 5_000;
/** Lines kept for an app while its drains load for the first time. */
const WAITING_MAX = 10_000;

export interface DrainForwarderDeps {
  db: Db;
  guard: OutboundGuard;
  pubsub: PubSub;
  clock: Clock;
  logs: Pick<LogStore, "append" | "resume">;
  /** HOSTNAME in syslog messages. */
  hostname: string;
  /** PEM certificates trusted besides the system's (DRAIN_CA_FILE). */
  ca: string[];
  onError(error: unknown, message: string): void;
}

interface AppDrains {
  slug: string;
  drains: Map<string, Drain>;
  reloadAt: number;
  loading: Promise<void> | null;
  /** Lines that came before the first load finished. */
  waiting: LogLineRecord[] | null;
}

interface Reported {
  sent: number;
  dropped: number;
  lastErrorAt: Date | null;
}

export class DrainForwarder {
  private readonly apps = new Map<string, AppDrains>();
  private readonly reported = new WeakMap<Drain, Reported>();
  private timer: unknown = null;
  /** Set at close: lines committed later (the log store's last flush) are not forwarded. */
  private closed = false;
  private changes: AsyncIterableIterator<unknown> | null = null;

  constructor(private readonly deps: DrainForwarderDeps) {}

  async start(): Promise<void> {
    this.changes = await this.deps.pubsub.subscribe(DRAINS_CHANGED);
    void (async () => {
      for await (const appId of this.changes!) if (typeof appId === "string" && this.apps.has(appId)) void this.load(appId);
    })().catch((error) => this.deps.onError(error, "following log drain changes failed"));
    const tick = () => {
      this.timer = this.deps.clock.setTimeout(() => {
        void this.report()
          .catch((error) => this.deps.onError(error, "recording log drain counts failed"))
          .finally(() => this.timer && tick());
      }, REPORT_MS);
    };
    tick();
  }

  /** The log store's tap: called with each committed batch of one app's lines. */
  forward(appId: string, lines: LogLineRecord[]): void {
    if (this.closed) return;
    let app = this.apps.get(appId);
    if (!app) {
      app = { slug: "", drains: new Map(), reloadAt: 0, loading: null, waiting: [] };
      this.apps.set(appId, app);
    }
    if (app.waiting) {
      for (const line of lines) if (app.waiting.length < WAITING_MAX) app.waiting.push(line);
    } else for (const drain of app.drains.values()) drain.enqueue(lines);
    if (!app.loading && this.deps.clock.now() >= app.reloadAt) void this.load(appId);
  }

  /** Reads the app's drains again, setting up new ones and closing removed ones. */
  private load(appId: string): Promise<void> {
    const app = this.apps.get(appId);
    if (!app) return Promise.resolve();
    const loading = (async () => {
      const row = await this.deps.db.app.findUnique({ where: { id: appId }, select: { slug: true, logDrains: { select: { id: true, url: true } } } });
      app.slug = row?.slug ?? "";
      const wanted = new Map((row?.logDrains ?? []).map((d) => [d.id, d.url]));
      for (const [id, drain] of app.drains) {
        if (wanted.get(id) !== drain.url) {
          drain.close();
          app.drains.delete(id);
        }
      }
      for (const [id, url] of wanted) if (!app.drains.has(id)) app.drains.set(id, new Drain(id, url, this.transport(url, app.slug), this.deps.clock));
      app.reloadAt = this.deps.clock.now() + RELOAD_MS;
      if (app.waiting) {
        const waiting = app.waiting;
        app.waiting = null;
        if (waiting.length) for (const drain of app.drains.values()) drain.enqueue(waiting);
      }
    })()
      .catch((error) => {
        app.reloadAt = this.deps.clock.now() + REPORT_MS;
        this.deps.onError(error, "loading an app's log drains failed");
      })
      .finally(() => {
        app.loading = null;
      });
    app.loading = loading;
    return loading;
  }

  private transport(url: string, appName: string): DrainTransport {
    const { guard, ca, hostname } = this.deps;
    const parsed = new URL(url);
    return parsed.protocol === "https:" ? new HttpsTransport({ url: parsed, guard, ca, appName }) : new SyslogTransport({ url: parsed, guard, ca, hostname, appName });
  }

  /** Adds what each drain sent and dropped since the last report to its row; drops are said in the app's log. */
  async report(): Promise<void> {
    for (const [appId, app] of this.apps) {
      // Apps that stopped logging are read again too: a deleted app's drains close, and its entry goes.
      if (!this.closed && !app.loading && this.deps.clock.now() >= app.reloadAt) await this.load(appId);
      if (!app.drains.size && !app.waiting && !app.slug) {
        this.apps.delete(appId);
        continue;
      }
      for (const drain of app.drains.values()) {
        const before = this.reported.get(drain) ?? { sent: 0, dropped: 0, lastErrorAt: null };
        const sent = drain.sent - before.sent;
        const dropped = drain.dropped - before.dropped;
        const newError = drain.lastErrorAt !== before.lastErrorAt;
        if (!sent && !dropped && !newError) continue;
        this.reported.set(drain, { sent: drain.sent, dropped: drain.dropped, lastErrorAt: drain.lastErrorAt });
        await this.deps.db.logDrain.updateMany({
          where: { id: drain.id },
          data: { sent: { increment: sent }, dropped: { increment: dropped }, ...(newError ? { lastError: drain.lastError, lastErrorAt: drain.lastErrorAt } : {}) },
        });
        if (dropped && !this.closed) await this.sayDropped(appId, drain, dropped);
      }
    }
  }

  private async sayDropped(appId: string, drain: Drain, count: number): Promise<void> {
    const why = drain.lastError ? `it failed: ${drain.lastError}` : "it could not keep up";
    const where = new URL(drain.url);
    await this.deps.logs.resume(appId);
    this.deps.logs.append(appId, {
      kind: "runtime",
      stream: "system",
      deploymentId: null,
      line: `Slipway dropped ${count} log lines bound for the drain ${drain.id} (${where.protocol}//${where.host}): ${why}.`,
    });
  }

  /** What this instance holds of an app's drains (tests, the bench). */
  drainsOf(appId: string): Drain[] {
    return [...(this.apps.get(appId)?.drains.values() ?? [])];
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.changes?.return?.();
    await this.report().catch((error) => this.deps.onError(error, "recording log drain counts failed"));
    for (const app of this.apps.values()) for (const drain of app.drains.values()) drain.close();
    this.apps.clear();
  }
}

/** DRAIN_CA_FILE's certificates (PEM), read once at boot: a missing file stops the boot, saying which. */
export function readDrainCa(path: string | null): string[] {
  if (!path) return [];
  try {
    return [readFileSync(path, "utf8")];
  } catch (error) {
    throw new Error(`DRAIN_CA_FILE: cannot read ${path}: ${(error as Error).message}`);
  }
}
