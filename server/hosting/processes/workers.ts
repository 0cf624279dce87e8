// The process types of an app's live release beside web (its Procfile's worker:, clock:, …), one ProcessGroup
// each. A new release's groups start once its web instances answer (the deploy calls roll() after its switch),
// then the previous release's stop. The quantities are the app's formation: a type it does not name runs 1.
import type { Instance } from "../../platform/runtime/types.ts";
import type { ProcessCommands } from "../builders/types.ts";
import { shownCommand } from "../deploy/shown-command.ts";
import type { Release } from "../release.ts";
import { ProcessGroup, type ProcessGroupDeps, type InstanceStatus } from "./process-group.ts";

/** How many instances of each type run ({"worker": 2}); web's is App.instances. */
export type Formation = Record<string, number>;

export interface WorkersDeps extends Omit<ProcessGroupDeps, "spawn" | "adopt" | "log"> {
  /** Starts instance `index` of `type` of the release. */
  spawn(release: Release, type: string, index: number): Promise<Instance>;
  /** Instance `index` of `type` of the release as an earlier platform left it running, or null. */
  adopt(release: Release, type: string, index: number): Promise<Instance | null>;
  /** A line of the platform's own in the app's runtime log, of the release. */
  log(line: string, release: Release): void;
}

/** One process type as App.processes shows it. */
export interface ProcessStatus {
  type: string;
  command: string;
  quantity: number;
  instances: InstanceStatus[];
}

/** A type's quantity: the formation's own entry (never an inherited one: a type may be named `constructor`), else 1. */
export function quantityOf(formation: Formation | null | undefined, type: string): number {
  return formation && Object.hasOwn(formation, type) && typeof formation[type] === "number" ? formation[type] : 1;
}

/** How many instances the types beside web run together under `formation` (what maxInstances counts with web's). */
export function instancesBesideWeb(types: Iterable<string>, formation: Formation | null | undefined): number {
  let total = 0;
  for (const type of types) total += quantityOf(formation, type);
  return total;
}

/** A release's instances of one process type, as the deploy's retire step stops them. */
export interface RetiringGroup {
  readonly type: string;
  stop(): Promise<void>;
}

/**
 * An app's process types beside web, whatever runs them: AppWorkers (Slipway's own instances: local, docker) or
 * ServiceWorkers (a Swarm service per type).
 */
export interface Workers {
  /** The types the running release has. */
  readonly types: string[];
  roll(release: Release, formation: Formation | null): Promise<void>;
  /**
   * After a platform restart, before the runtime reaps what was left: takes the release's instances that still run
   * (false: none); resume() then starts the missing ones.
   */
  adopt(release: Release, formation: Formation | null): Promise<boolean>;
  resume(): Promise<void>;
  /** The release's types start; answers the groups they replace, still running until retire(). */
  start(release: Release, formation: Formation | null): Promise<RetiringGroup[]>;
  retire(replaced: RetiringGroup[]): Promise<void>;
  scale(type: string, quantity: number): Promise<void>;
  /** Stops every instance; a later roll() starts them again. */
  stop(): Promise<void>;
  /** The platform shuts down: with `keep`, what can outlive it keeps running for the next boot. */
  close(keep: boolean): Promise<void>;
  status(): ProcessStatus[];
}

export class AppWorkers implements Workers {
  private release: Release | null = null;
  private groups = new Map<string, ProcessGroup>();

  constructor(private readonly deps: WorkersDeps) {}

  /** The types the running release has. */
  get types(): string[] {
    return [...this.groups.keys()];
  }

  /**
   * The release's types run as the formation says: its groups start, then the ones they replace stop. With the same
   * release, a restart of every type (new env vars, a restart).
   */
  async roll(release: Release, formation: Formation | null): Promise<void> {
    await this.retire(await this.start(release, formation));
  }

  /** The release's groups start (resolves once each instance was started); answers the ones they replace, still running. */
  async start(release: Release, formation: Formation | null): Promise<ProcessGroup[]> {
    const previous = [...this.groups.values()];
    const processes: ProcessCommands = release.processes ?? {};
    this.release = release;
    this.groups = new Map(Object.keys(processes).map((type) => [type, this.group(release, type, quantityOf(formation, type))]));
    await Promise.all([...this.groups.values()].map((group) => group.start()));
    return previous;
  }

  /** Stops groups a start() replaced. */
  async retire(replaced: ProcessGroup[]): Promise<void> {
    await Promise.all(replaced.map((group) => group.stop()));
  }

  /** Runs `quantity` instances of `type` (a type of the running release). */
  scale(type: string, quantity: number): Promise<void> {
    const group = this.groups.get(type);
    if (!group || !this.release) return Promise.resolve();
    if (quantity !== group.quantity) this.deps.log(`Scaling ${type} to ${quantity}.`, this.release);
    return group.scale(quantity);
  }

  /** Stops every instance; a later roll() starts them again. */
  async stop(): Promise<void> {
    const groups = [...this.groups.values()];
    this.groups = new Map();
    await Promise.all(groups.map((group) => group.stop()));
  }

  async adopt(release: Release, formation: Formation | null): Promise<boolean> {
    this.release = release;
    this.groups = new Map(Object.keys(release.processes ?? {}).map((type) => [type, this.group(release, type, quantityOf(formation, type))]));
    const taken = (await Promise.all([...this.groups.values()].map((group) => group.adopt()))).flat();
    if (taken.length) this.deps.log(`The platform restarted: ${taken.join(", ")} kept running.`, release);
    return taken.length > 0;
  }

  async resume(): Promise<void> {
    await Promise.all([...this.groups.values()].map((group) => group.start()));
  }

  /** With `keep`, the instances keep running for the next platform to adopt; else they stop. */
  async close(keep: boolean): Promise<void> {
    if (!keep) return this.stop();
    for (const group of this.groups.values()) group.abandon();
    this.groups = new Map();
  }

  status(): ProcessStatus[] {
    const processes = this.release?.processes ?? {};
    return [...this.groups.values()].map((group) => ({
      type: group.type,
      command: shownCommand(processes[group.type] ?? []),
      quantity: group.quantity,
      instances: group.status(),
    }));
  }

  private group(release: Release, type: string, quantity: number): ProcessGroup {
    return new ProcessGroup(
      {
        ...this.deps,
        spawn: (index) => this.deps.spawn(release, type, index),
        adopt: (index) => this.deps.adopt(release, type, index),
        log: (line) => this.deps.log(line, release),
      },
      type,
      quantity,
    );
  }
}
