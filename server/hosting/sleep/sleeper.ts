// Putting an idle app to sleep and waking it, one change at a time per app: a wake waits for a sleep under way (its
// instances stopping) and a sleep records SLEEPING only while the app's route still says so, so the two never leave
// the app marked asleep while it serves. Concurrent wakes share one start; after a start that failed, requests are
// answered at once (the router's "could not wake" page) for a cool-down instead of each starting the app again.
import type { AppRunners } from "../app-runners.ts";
import type { LogStore } from "../logs/store.ts";
import type { Release } from "../release.ts";
import type { MemoryRouteTable } from "../routes.ts";
import type { HostingState } from "../state.ts";

/** After a wake that failed to start the app, how long before a request tries again. */
export const WAKE_COOL_DOWN_MS = 10_000;

export interface SleeperDeps {
  runners: AppRunners;
  routes: MemoryRouteTable;
  logs: LogStore;
  state: HostingState;
}

type AppRef = { id: string; slug: string };

export class Sleeper {
  /** The latest sleep or wake of each app, which the next one waits for. */
  private readonly changes = new Map<string, Promise<unknown>>();
  private readonly waking = new Map<string, Promise<void>>();
  private readonly failedAt = new Map<string, number>();

  constructor(private readonly deps: SleeperDeps) {}

  /** Stops the app's web instances (its other types too with sleepWorkers); false when nothing serves to put to sleep. */
  sleep(app: AppRef & { sleepWorkers: boolean }, idleMinutes: number): Promise<boolean> {
    return this.serially(app.id, () => this.putToSleep(app, idleMinutes));
  }

  /** Starts a sleeping app's live release (`live`: as the database has it, when nothing ran it here since boot). */
  wake(app: AppRef, live: Release | null): Promise<void> {
    let waking = this.waking.get(app.id);
    if (!waking) {
      waking = this.serially(app.id, () => this.start(app, live)).finally(() => this.waking.delete(app.id));
      this.waking.set(app.id, waking);
    }
    return waking;
  }

  private async putToSleep(app: AppRef & { sleepWorkers: boolean }, idleMinutes: number): Promise<boolean> {
    const { runners, logs, routes, state } = this.deps;
    const supervisor = runners.findSupervisor(app.id);
    const release = supervisor?.liveRelease;
    if (!supervisor || !release || !supervisor.running || release.web.kind === "static") return false;
    logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: `Sleeping: no request for ${idleMinutes} minute${idleMinutes === 1 ? "" : "s"}. The next request wakes it.` });
    await Promise.all([supervisor.stop("SLEEPING"), app.sleepWorkers ? runners.findWorkers(app.id)?.stop() : undefined]);
    // A deploy, a restart or a stop meanwhile decided what the app is now.
    if (routes.lookup(app.slug).kind !== "sleeping") return false;
    await state.setAppStatus(app.id, "SLEEPING");
    return true;
  }

  private async start(app: AppRef, live: Release | null): Promise<void> {
    const { runners, logs, routes } = this.deps;
    const supervisor = runners.supervisorOf(app);
    const release = supervisor.liveRelease ?? live;
    // Woken already (by another request, or a deploy, a start or a stop came first).
    if (!release || routes.lookup(app.slug).kind !== "sleeping") return;
    const failed = this.failedAt.get(app.id);
    if (failed !== undefined && Date.now() - failed < WAKE_COOL_DOWN_MS) return;
    const began = Date.now();
    logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: "Waking: a request arrived." });
    await supervisor.bringBack(release);
    // The other types slept with web (sleepWorkers): they start again too.
    if (!runners.findWorkers(app.id)?.types.length) runners.runWorkers(app, release, await runners.formationOf(app.id));
    if (supervisor.running) {
      this.failedAt.delete(app.id);
      logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: `Awake in ${Date.now() - began} ms.` });
    } else {
      this.failedAt.set(app.id, Date.now());
      logs.append(app.id, { kind: "runtime", stream: "system", deploymentId: release.deploymentId, line: `It did not start: requests are answered that it could not wake for ${WAKE_COOL_DOWN_MS / 1000} s, then the next one tries again.` });
    }
  }

  private serially<T>(appId: string, change: () => Promise<T>): Promise<T> {
    const previous = this.changes.get(appId) ?? Promise.resolve();
    const next = previous.then(change, change);
    const settled = next.catch(() => {});
    this.changes.set(appId, settled);
    void settled.then(() => {
      if (this.changes.get(appId) === settled) this.changes.delete(appId);
    });
    return next;
  }
}
