// The periodic health check of an app's running instances: the check of the start (health.ts) at the app's
// interval, both read again before each run so that a changed setting applies. An instance that fails `failures`
// checks in a row leaves the rotation; it comes back as soon as one passes. The router reports connection errors
// too (markFailed): out at once. One that still fails after `restartAfter` checks in a row is stuck (a hung event
// loop, a deadlock): it is restarted.
import type { Clock } from "./clock.ts";
import { check } from "./health.ts";
import { describeProbe, type HealthProbe } from "./health-settings.ts";
import { moveReplica, type Replica } from "./replicas.ts";

export interface HealthCheckOptions {
  /** Failed checks in a row that take an instance out of rotation. */
  failures: number;
  /** Failed checks in a row after which the instance is restarted (0: never). */
  restartAfter: number;
}

export class HealthMonitor {
  private timer: unknown = null;
  private checking = false;

  constructor(
    private readonly options: HealthCheckOptions,
    private readonly clock: Clock,
    /** The check of the live release's instances, as the settings say now. */
    private readonly probe: () => HealthProbe,
    /** The instances to check (the live release's running ones). */
    private readonly replicas: () => Replica[],
    /** A replica went in or out of rotation. */
    private readonly changed: (replica: Replica, why: string) => void,
    /** A replica failed `restartAfter` checks in a row: it is to be restarted. */
    private readonly stuck: (replica: Replica, why: string) => void,
  ) {}

  start(): void {
    if (this.timer === null) this.schedule();
  }

  stop(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** The router could not reach it: out of rotation now, back once a check passes. */
  markFailed(replica: Replica, why: string): void {
    replica.failures = Math.max(replica.failures, this.options.failures);
    if (moveReplica(replica, "failing")) this.changed(replica, why);
  }

  private schedule(): void {
    this.timer = this.clock.setTimeout(() => void this.tick(), this.probe().intervalMs);
  }

  private async tick(): Promise<void> {
    if (this.timer === null) return;
    if (!this.checking) {
      this.checking = true;
      try {
        const probe = this.probe();
        await Promise.all(this.replicas().map((replica) => this.check(replica, probe)));
      } finally {
        this.checking = false;
      }
    }
    if (this.timer !== null) this.schedule();
  }

  private async check(replica: Replica, probe: HealthProbe): Promise<void> {
    const { host, port } = replica.instance.target;
    const result = await check(host, port, probe);
    if (result.ok) {
      replica.failures = 0;
      if (moveReplica(replica, "passed")) this.changed(replica, "it passes its health check again: back in rotation");
      return;
    }
    if (replica.state === "exited") return;
    replica.failures += 1;
    if (replica.failures >= this.options.failures && moveReplica(replica, "failing")) {
      this.changed(replica, `failed ${replica.failures} health checks in a row (${describeProbe(probe)}: it ${result.detail}): out of rotation until it passes again`);
    }
    if (this.options.restartAfter > 0 && replica.failures >= this.options.restartAfter && moveReplica(replica, "stuck")) {
      this.stuck(replica, `failed ${replica.failures} health checks in a row: restarting it`);
    }
  }
}
