// How an app's live release recovers from crashes (supervisor.ts), each time after a back-off that doubles with each
// failure in a row: while none of its instances serves, the whole release starts again; an instance that exits, or
// does not start, starts again alone while the others keep serving (scaling up starts new ones the same way). The
// failures in a row are counted for the release and per instance (web.N: its slot), an instance's forgotten once
// it was up for the healthy period, all of them when a new release goes live.
import type { Clock } from "./clock.ts";
import { waitUntilHealthy } from "./health.ts";
import type { HealthProbe } from "./health-settings.ts";
import type { Backoff } from "./processes/process-group.ts";
import { alive, formatDelay, moveReplica, replicaName, type Replica, type ReplicaStatus } from "./replicas.ts";
import type { Release } from "./release.ts";
import type { Candidate } from "./supervisor.ts";

export interface CrashRecoveryDeps {
  clock: Clock;
  backoff: Backoff;
  startTimeoutMs: number;
  /** SIGTERM → SIGKILL. */
  stopGraceMs: number;
  /** Start → answer → switch → retire, for the whole release. */
  relaunch(release: Release): Promise<void>;
  /** Whether `release` is still the one to bring back: nothing current, and not stopped meanwhile. */
  stillCrashed(release: Release): boolean;
  /** The route shows the crashed page, the app is CRASHED. */
  showCrashed(): void;
  /** Spawns instance `index` of the candidate's release. */
  spawn(candidate: Candidate, index: number): Promise<Replica>;
  /** The health check a release's instances pass before they take traffic. */
  healthOf(release: Release): HealthProbe;
  /** Whether instance `index` of the candidate is still to start: the app not stopped, the candidate live, the index within the scale, its place empty. */
  stillWanted(candidate: Candidate, index: number): boolean;
  /** Why a start failed, in words for the app's log. */
  didNotStart(error: unknown): string;
  /** Routes the app as its live release stands. */
  publish(): void;
  /** A line of the platform's own in the app's runtime log. */
  log(line: string, release: Release): void;
  /** Something App.processes shows changed. */
  changed(): void;
  crashed(): void;
}

export class CrashRecovery {
  /** Starts of the whole release failed in a row (nothing current). */
  private releaseCrashes = 0;
  private releaseTimer: unknown = null;
  /** Per instance index: failures in a row, and the pending restart. */
  private readonly crashes = new Map<number, number>();
  private readonly timers = new Map<number, unknown>();
  /** Instance indexes of the live release being started (after a crash, or scaling up). */
  private readonly starting = new Set<number>();

  constructor(private readonly deps: CrashRecoveryDeps) {}

  /** Failures in a row: the release's while nothing is current, else those of the instance that failed most. */
  restartsOf(current: Candidate | null): number {
    if (!current) return this.releaseCrashes;
    return Math.max(0, ...this.statuses(current).map((p) => p.restarts));
  }

  /** The live release's instances as App.processes shows them; an instance up for the healthy period has no failures. */
  statuses(current: Candidate | null): ReplicaStatus[] {
    if (!current || current.root) return [];
    const now = this.deps.clock.now();
    // Array.from, not map: an instance being started is a hole in the array.
    return Array.from(current.replicas, (replica, i) => this.status(i + 1, replica, now));
  }

  private status(index: number, replica: Replica | undefined, now: number): ReplicaStatus {
    const up = alive(replica) && now - replica.startedAt >= this.deps.backoff.healthyAfterMs;
    const restarts = up ? 0 : (this.crashes.get(index) ?? 0);
    if (!alive(replica)) return { index, instanceId: "", state: this.starting.has(index) ? "starting" : "crashed", startedAt: null, restarts };
    return { index, instanceId: replica.instance.instanceId, state: replica.state as ReplicaStatus["state"], startedAt: new Date(replica.startedAt), restarts };
  }

  /** Another release goes live: nothing of it has failed yet. */
  newRelease(): void {
    this.releaseCrashes = 0;
    this.crashes.clear();
  }

  /** Status CRASHED, then another start of the whole release after its back-off. */
  retryRelease(release: Release, why: string): void {
    this.releaseCrashes += 1;
    const delay = backoffDelay(this.deps.backoff, this.releaseCrashes);
    this.deps.log(`Crashed: ${why}. Restarting in ${formatDelay(delay)} (failure ${this.releaseCrashes} in a row).`, release);
    this.deps.showCrashed();
    this.deps.crashed();
    if (this.releaseTimer !== null) this.deps.clock.clearTimeout(this.releaseTimer);
    this.releaseTimer = this.deps.clock.setTimeout(() => {
      this.releaseTimer = null;
      if (!this.deps.stillCrashed(release)) return;
      this.deps.relaunch(release).catch((error: unknown) => {
        if (this.deps.stillCrashed(release)) this.retryRelease(release, this.deps.didNotStart(error));
      });
    }, delay);
  }

  /** Starts instance `index` of the live release again (a crash's restart, or a new one when scaling up). */
  async restartInstance(candidate: Candidate, index: number): Promise<void> {
    this.timers.delete(index);
    const wanted = () => this.deps.stillWanted(candidate, index);
    if (!wanted()) return;
    let replica: Replica | undefined;
    this.starting.add(index);
    this.deps.changed();
    try {
      replica = await this.deps.spawn(candidate, index);
      await waitUntilHealthy(replica, this.deps.healthOf(candidate.release), this.deps.startTimeoutMs);
    } catch (error) {
      await replica?.instance.stop(this.deps.stopGraceMs).catch(() => {});
      if (wanted()) this.instanceCrashed(candidate, index, this.deps.didNotStart(error));
      return;
    } finally {
      this.starting.delete(index);
    }
    if (!wanted()) return void (await replica.instance.stop(this.deps.stopGraceMs));
    candidate.replicas[index - 1] = replica;
    if (replica.exit !== undefined) return this.instanceCrashed(candidate, index, `the process exited (${replica.exit})`, replica.startedAt);
    moveReplica(replica, "passed");
    this.deps.publish();
  }

  /** An instance of the live release is gone: the others keep serving; it starts again after its back-off. */
  instanceCrashed(candidate: Candidate, index: number, why: string, startedAt?: number): void {
    const { backoff, clock } = this.deps;
    if (startedAt !== undefined && clock.now() - startedAt >= backoff.healthyAfterMs) this.crashes.set(index, 0);
    candidate.replicas[index - 1] = undefined;
    const failures = (this.crashes.get(index) ?? 0) + 1;
    this.crashes.set(index, failures);
    const delay = backoffDelay(backoff, failures);
    const others = candidate.replicas.filter(alive).map((r) => replicaName(r.index));
    const who = candidate.replicas.length > 1 ? `${replicaName(index)}: ` : "";
    const serving = others.length ? ` ${others.join(", ")} keep${others.length === 1 ? "s" : ""} serving.` : "";
    this.deps.log(`Crashed: ${who}${why}. Restarting in ${formatDelay(delay)} (failure ${failures} in a row).${serving}`, candidate.release);
    this.deps.publish();
    this.deps.crashed();
    this.cancelInstance(index);
    this.timers.set(index, clock.setTimeout(() => void this.restartInstance(candidate, index), delay));
  }

  /** Instance `index` is no longer wanted (scaled down): its pending restart is off. */
  cancelInstance(index: number): void {
    const timer = this.timers.get(index);
    if (timer !== undefined) this.deps.clock.clearTimeout(timer);
    this.timers.delete(index);
  }

  cancelAll(): void {
    if (this.releaseTimer !== null) this.deps.clock.clearTimeout(this.releaseTimer);
    this.releaseTimer = null;
    for (const index of [...this.timers.keys()]) this.cancelInstance(index);
  }
}

function backoffDelay(backoff: Backoff, failures: number): number {
  return Math.min(backoff.baseMs * 2 ** (failures - 1), backoff.maxMs);
}
