// The process types beside web on Swarm (RUNTIME=swarm): one service per type (`slipway-<slug>_<type>`, no port, no
// traffic), its replicas the type's quantity. Swarm restarts a crashed task itself and rolls a new release out
// start-first; Slipway follows each task's output into the app's log as <type>.<slot>, and shows the tasks as the
// type's instances. A platform that shuts down leaves the services running; the next one adopts them unchanged.
import path from "node:path";
import type { SandboxLimits } from "../../platform/runtime/types.ts";
import type { SwarmOrchestrator, TaskView } from "../../platform/runtime/swarm/orchestrator.ts";
import { describeTaskError } from "../../platform/runtime/swarm/rollout.ts";
import { processEnv } from "../builders/types.ts";
import { shownCommand } from "../deploy/shown-command.ts";
import type { Redact } from "../logs/redact.ts";
import { processLog } from "../logs/sink.ts";
import type { LogStore } from "../logs/store.ts";
import type { Release } from "../release.ts";
import type { InstanceState } from "./instance-states.ts";
import type { InstanceStatus } from "./process-group.ts";
import { quantityOf, type Formation, type ProcessStatus, type RetiringGroup, type Workers } from "./workers.ts";

export interface ServiceWorkersDeps {
  orchestrator: SwarmOrchestrator;
  app: { id: string; slug: string };
  logs: LogStore;
  limits: SandboxLimits;
  /** Where the app's data directory appears in its tasks. */
  dataPath: string;
  dataDir: string;
  envOf(appId: string): Promise<Record<string, string>>;
  redactorOf(appId: string): Redact;
  /** A line of the platform's own in the app's runtime log, of the release. */
  log(line: string, release: Release): void;
  /** The types' instances changed (App.processes). */
  changed(): void;
  onError(error: unknown, message: string): void;
  /** How long a task has to stop after SIGTERM. */
  stopGraceMs: number;
  /** A process of the app crashed (notifications count crash loops). */
  crashed?(): void;
}

interface TypeService {
  id: string;
  quantity: number;
  tasks: TaskView[];
}

/** Swarm's task states as an instance's. */
const STATE: Record<string, InstanceState> = { running: "running", failed: "crashed", rejected: "crashed", shutdown: "stopped", complete: "stopped", orphaned: "stopped", remove: "stopping" };

export class ServiceWorkers implements Workers {
  private release: Release | null = null;
  private services = new Map<string, TypeService>();
  /** Tasks whose output is followed. */
  private readonly following = new Map<string, AbortController>();
  /** Failed tasks already in the log (a failed task stays in Swarm's history). */
  private readonly reported = new Set<string>();
  /** Output before this (epoch seconds) is not read again: what an adopted task wrote before a platform restart is stored. */
  private logsFrom = 0;

  constructor(private readonly deps: ServiceWorkersDeps) {}

  get types(): string[] {
    return [...this.services.keys()];
  }

  async roll(release: Release, formation: Formation | null): Promise<void> {
    await this.retire(await this.start(release, formation));
  }

  /**
   * The release's services as an earlier platform left them: followed again, untouched (their tasks go on), their
   * output from now on. False unless every type of the release has its service running that release: the boot then
   * rolls the release out.
   */
  async adopt(release: Release, formation: Formation | null): Promise<boolean> {
    const types = Object.keys(release.processes ?? {});
    const found = await this.deps.orchestrator.processServicesOf(this.deps.app.id);
    if (!types.length || types.some((type) => found.get(type)?.deploymentId !== release.deploymentId)) return false;
    this.release = release;
    this.logsFrom = Math.floor(Date.now() / 1000);
    this.services = new Map(types.map((type) => [type, { id: found.get(type)!.id, quantity: quantityOf(formation, type), tasks: [] }]));
    for (const [type, service] of this.services) {
      // The formation changed while no platform ran.
      if (found.get(type)!.replicas !== service.quantity) await this.deps.orchestrator.scaleService(service.id, service.quantity);
      this.watch(type, service.id);
    }
    this.deps.log(`The platform restarted: ${types.join(", ")} kept running.`, release);
    return true;
  }

  /** adopt() took every type: nothing is missing. */
  async resume(): Promise<void> {}

  async start(release: Release, formation: Formation | null): Promise<RetiringGroup[]> {
    const { orchestrator, app } = this.deps;
    const previous = this.services;
    const env = processEnv(release.web, await this.deps.envOf(app.id));
    this.release = release;
    this.services = new Map();
    for (const [type, argv] of Object.entries(release.processes ?? {})) {
      const quantity = quantityOf(formation, type);
      const id = await orchestrator.deployProcess(
        {
          appKey: app.id,
          slug: app.slug,
          deploymentId: release.deploymentId,
          imageOf: path.basename(release.dir),
          dir: release.dir,
          argv,
          healthPath: null,
          env,
          replicas: quantity,
          limits: this.deps.limits,
          dataDir: { host: this.deps.dataDir, inApp: this.deps.dataPath },
          process: type,
        },
        (line) => this.deps.log(line, release),
      );
      this.services.set(type, { id, quantity, tasks: previous.get(type)?.id === id ? previous.get(type)!.tasks : [] });
      this.watch(type, id);
    }
    // A type the new release no longer has: its service goes in the retire step.
    return [...previous].filter(([type]) => !this.services.has(type)).map(([type, service]) => ({ type, stop: () => this.deps.orchestrator.removeService(service.id) }));
  }

  async retire(replaced: RetiringGroup[]): Promise<void> {
    await Promise.all(replaced.map((group) => group.stop()));
  }

  async scale(type: string, quantity: number): Promise<void> {
    const service = this.services.get(type);
    if (!service || !this.release) return;
    if (quantity !== service.quantity) this.deps.log(`Scaling ${type} to ${quantity}.`, this.release);
    service.quantity = quantity;
    await this.deps.orchestrator.scaleService(service.id, quantity);
  }

  /**
   * Scales every type's service to 0 (kept: a later roll() scales it up again); resolves once their tasks ended, as a
   * stop of Slipway's own instances does (past the grace period and a margin, it resolves anyway).
   */
  async stop(): Promise<void> {
    const services = [...this.services.values()];
    this.unfollow();
    this.services = new Map();
    const { orchestrator } = this.deps;
    await Promise.all(services.map((s) => orchestrator.scaleService(s.id, 0)));
    const deadline = Date.now() + this.deps.stopGraceMs + 5_000;
    for (const service of services) {
      while ((await orchestrator.runningTasks(service.id).catch(() => 0)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async close(keep: boolean): Promise<void> {
    if (!keep) return this.stop();
    this.unfollow();
  }

  status(): ProcessStatus[] {
    const processes = this.release?.processes ?? {};
    return [...this.services].map(([type, service]) => ({ type, command: shownCommand(processes[type] ?? []), quantity: service.quantity, instances: instancesOf(type, service.tasks) }));
  }

  private watch(type: string, serviceId: string): void {
    this.deps.orchestrator.watch(serviceId, ({ tasks }) => {
      const service = this.services.get(type);
      if (!service || service.id !== serviceId) return;
      service.tasks = tasks;
      for (const task of tasks) {
        if (task.state === "running" && task.desired === "running") this.follow(type, task);
        this.reportFailure(type, task);
      }
      this.deps.changed();
    });
  }

  private follow(type: string, task: TaskView): void {
    if (this.following.has(task.id)) return;
    const abort = new AbortController();
    this.following.set(task.id, abort);
    const { app } = this.deps;
    const log = processLog(this.deps.logs, { appId: app.id, kind: "runtime", deploymentId: task.deploymentId, process: `${type}.${task.slot ?? 1}` }, () => this.deps.redactorOf(app.id));
    this.deps.orchestrator
      .followLogs(task.id, log.sink, { since: Math.max(Math.floor(Date.parse(task.createdAt) / 1000) || 0, this.logsFrom), signal: abort.signal })
      .catch((error: unknown) => {
        if (!abort.signal.aborted) this.deps.onError(error, `following the output of task ${task.id}`);
      })
      .finally(() => {
        log.end();
        this.following.delete(task.id);
      });
  }

  private reportFailure(type: string, task: TaskView): void {
    if ((task.state !== "failed" && task.state !== "rejected") || this.reported.has(task.id) || !this.release) return;
    this.reported.add(task.id);
    this.deps.log(`Crashed: ${type}.${task.slot ?? 1}: ${describeTaskError(task)}. Swarm starts another.`, this.release);
    this.deps.crashed?.();
  }

  private unfollow(): void {
    for (const service of this.services.values()) this.deps.orchestrator.unwatch(service.id);
    for (const abort of this.following.values()) abort.abort();
    this.following.clear();
  }
}

/**
 * One instance per slot: its newest task meant to run, else one still running that Swarm stops (stopping); a slot's
 * failed tasks count as its restarts.
 */
function instancesOf(type: string, tasks: TaskView[]): InstanceStatus[] {
  const bySlot = new Map<number, TaskView[]>();
  for (const task of tasks) if (task.slot !== null) bySlot.set(task.slot, [...(bySlot.get(task.slot) ?? []), task]);
  const instances: InstanceStatus[] = [];
  for (const [slot, slotTasks] of [...bySlot].sort(([a], [b]) => a - b)) {
    const current = slotTasks.findLast((t) => t.desired === "running") ?? slotTasks.findLast((t) => t.state === "running");
    if (!current) continue;
    const stopping = current.desired !== "running";
    instances.push({
      index: slot,
      name: `${type}.${slot}`,
      instanceId: current.state === "running" ? current.id : null,
      state: stopping ? "stopping" : (STATE[current.state] ?? "starting"),
      startedAt: current.createdAt ? new Date(current.createdAt) : null,
      restarts: slotTasks.filter((t) => t.state === "failed" || t.state === "rejected").length,
    });
  }
  return instances;
}
