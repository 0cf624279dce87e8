// Keeps `quantity` instances of one process type of one release running (worker.1 … worker.N): each one started
// through the runtime, restarted after an exit with the same back-off as web (reset after a healthy period), and
// stopped gracefully (SIGTERM, SIGKILL after the grace period) when scaled down or replaced. Each instance moves
// through instance-states.ts's table; nothing here waits on the real clock.
import type { Instance } from "../../platform/runtime/types.ts";
import type { Clock } from "../clock.ts";
import { describeExit } from "../health.ts";
import { formatDelay, range } from "../replicas.ts";
import { nextState, type InstanceEvent, type InstanceState } from "./instance-states.ts";

export interface Backoff {
  baseMs: number;
  maxMs: number;
  /** Up this long, an instance's failures in a row are forgotten. */
  healthyAfterMs: number;
}

export interface ProcessGroupDeps {
  /** Starts instance `index` of the type (the runtime driver's start, with the spec the engine builds). */
  spawn(index: number): Promise<Instance>;
  /** Instance `index` as an earlier platform left it running, if it runs what spawn() would (the driver's adopt). */
  adopt?(index: number): Promise<Instance | null>;
  clock: Clock;
  backoff: Backoff;
  /** SIGTERM → SIGKILL. */
  stopGraceMs: number;
  /** A line of the platform's own in the app's runtime log. */
  log(line: string): void;
  /** Something App.processes shows changed. */
  changed(): void;
  /** A process of the app crashed (notifications count crash loops). */
  crashed?(): void;
}

/** One instance as App.processes shows it. */
export interface InstanceStatus {
  index: number;
  name: string;
  instanceId: string | null;
  state: InstanceState;
  startedAt: Date | null;
  /** Failures in a row (exits, starts that failed); 0 once it has been up for the healthy period. */
  restarts: number;
}

interface Slot {
  index: number;
  state: InstanceState;
  instance?: Instance;
  startedAt?: number;
  failures: number;
  retryTimer?: unknown;
  /** Resolves once the slot is stopped. */
  settled: Promise<void>;
  settle(): void;
}

export class ProcessGroup {
  /** slots[i] is instance i + 1; only the first `quantity` are wanted, the others are on their way out. */
  private readonly slots = new Map<number, Slot>();
  private wanted: number;

  constructor(
    private readonly deps: ProcessGroupDeps,
    readonly type: string,
    quantity: number,
  ) {
    this.wanted = quantity;
  }

  get quantity(): number {
    return this.wanted;
  }

  /** Starts the wanted instances; resolves once each was started (or failed to, and waits for its retry). */
  start(): Promise<void> {
    return this.scale(this.wanted);
  }

  /** Runs `quantity` instances: the missing ones start, the ones past it stop (highest first, like Heroku). */
  async scale(quantity: number): Promise<void> {
    this.wanted = quantity;
    const removing = [...this.slots.values()].filter((slot) => slot.index > quantity);
    await Promise.all([...range(1, quantity).map((index) => this.ensure(index)), ...removing.map((slot) => this.stopSlot(slot))]);
  }

  /** Stops every instance; resolves once none is left. */
  stop(): Promise<void> {
    return this.scale(0);
  }

  /**
   * After a platform restart: takes the wanted instances an earlier platform left running; start() then starts the
   * missing ones. Answers the names of those taken.
   */
  async adopt(): Promise<string[]> {
    const taken: string[] = [];
    for (const index of range(1, this.wanted)) {
      const instance = this.slots.has(index) ? null : await this.deps.adopt?.(index);
      if (!instance) continue;
      const slot = this.newSlot(index);
      this.follow(slot, instance);
      this.apply(slot, "spawned");
      taken.push(this.nameOf(index));
    }
    return taken;
  }

  /** The platform shuts down and its instances keep running for the next one to adopt: they are no longer followed. */
  abandon(): void {
    for (const slot of this.slots.values()) {
      if (slot.retryTimer !== undefined) this.deps.clock.clearTimeout(slot.retryTimer);
      // Its exit, if a driver still reports one, is no longer this group's.
      slot.instance = undefined;
    }
    this.slots.clear();
  }

  status(): InstanceStatus[] {
    const now = this.deps.clock.now();
    return [...this.slots.values()]
      .sort((a, b) => a.index - b.index)
      .map((slot) => {
        const healthy = slot.state === "running" && now - slot.startedAt! >= this.deps.backoff.healthyAfterMs;
        return {
          index: slot.index,
          name: this.nameOf(slot.index),
          instanceId: slot.state === "running" || slot.state === "stopping" ? (slot.instance?.instanceId ?? null) : null,
          state: slot.state,
          startedAt: slot.state === "running" ? new Date(slot.startedAt!) : null,
          restarts: healthy ? 0 : slot.failures,
        };
      });
  }

  /** Instance `index` runs (or is on its way): started now, or once a stop of it under way is over. */
  private async ensure(index: number): Promise<void> {
    const slot = this.slots.get(index);
    if (slot?.state === "stopping") await slot.settled;
    else if (slot) return;
    if (index <= this.wanted && !this.slots.has(index)) await this.launch(this.newSlot(index));
  }

  private newSlot(index: number): Slot {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const slot: Slot = { index, state: "starting", failures: 0, settled, settle };
    this.slots.set(index, slot);
    return slot;
  }

  /** Moves the slot along the table; false when its state ignores the event. */
  private apply(slot: Slot, event: InstanceEvent): boolean {
    const next = nextState(slot.state, event);
    if (!next) return false;
    slot.state = next;
    if (next === "stopped") {
      this.slots.delete(slot.index);
      slot.settle();
    }
    this.deps.changed();
    return true;
  }

  private async launch(slot: Slot): Promise<void> {
    let instance: Instance;
    try {
      instance = await this.deps.spawn(slot.index);
    } catch (error) {
      if (this.apply(slot, "spawnFailed") && slot.state === "crashed") this.crashed(slot, `it did not start: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.follow(slot, instance);
    // Stopped while it was being started: it stops now that there is a process to stop.
    if (!this.apply(slot, "spawned")) await instance.stop(this.deps.stopGraceMs);
  }

  private follow(slot: Slot, instance: Instance): void {
    slot.instance = instance;
    slot.startedAt = this.deps.clock.now();
    void instance.exited.then((exit) => this.exited(slot, instance, describeExit(exit)));
  }

  private exited(slot: Slot, instance: Instance, how: string): void {
    if (slot.instance !== instance) return;
    if (this.apply(slot, "exited") && slot.state === "crashed") this.crashed(slot, `the process exited (${how})`);
  }

  /** Out of the way: a restart after a delay that doubles with each failure in a row. */
  private crashed(slot: Slot, why: string): void {
    const { backoff, clock } = this.deps;
    if (slot.startedAt !== undefined && clock.now() - slot.startedAt >= backoff.healthyAfterMs) slot.failures = 0;
    // Counted from this crash on: a start that fails later must not look like the end of a long run.
    slot.startedAt = undefined;
    slot.failures += 1;
    const delay = Math.min(backoff.baseMs * 2 ** (slot.failures - 1), backoff.maxMs);
    this.deps.log(`Crashed: ${this.nameOf(slot.index)}: ${why}. Restarting in ${formatDelay(delay)} (failure ${slot.failures} in a row).`);
    this.deps.crashed?.();
    slot.retryTimer = clock.setTimeout(() => {
      slot.retryTimer = undefined;
      if (this.apply(slot, "retry")) void this.launch(slot);
    }, delay);
  }

  private async stopSlot(slot: Slot): Promise<void> {
    if (slot.retryTimer !== undefined) this.deps.clock.clearTimeout(slot.retryTimer);
    slot.retryTimer = undefined;
    const wasRunning = slot.state === "running";
    this.apply(slot, "stop");
    if (wasRunning) await slot.instance!.stop(this.deps.stopGraceMs);
    await slot.settled;
  }

  private nameOf(index: number): string {
    return `${this.type}.${index}`;
  }
}
