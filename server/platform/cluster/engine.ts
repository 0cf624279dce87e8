// The engine as every entry point sees it, on any instance. The leader runs the hosting engine itself; a follower
// sends what would change it (a deploy, a stop, a scale) through the durable command queue and waits for the
// leader's answer, and asks the leader for what only its memory holds (the instances running now). What every
// instance does alone (log lines, the routing table it serves from, where files go) goes to the local engine.
import type { Db } from "../../db/client.ts";
import { EngineUnavailableError, NotFoundError, RelayedError } from "../../errors.ts";
import type { HostingEngine, Paused } from "../../hosting/engine.ts";
import type { CommandQueue, CommandResult, EngineCommand, Unanswered } from "./commands.ts";
import type { LeaderQuestions } from "./questions.ts";

type AppRef = { id: string; slug: string };
export type EngineRuntime = ReturnType<HostingEngine["runtime"]>;

/** How long a follower waits for the leader's routing table to reach it after the leader answered. */
const ROUTE_COPY_WITHIN_MS = 5_000;

const NOTHING_RUNS: EngineRuntime = { restarts: 0, running: false, processes: [], workers: [] };

export interface ClusterEngineDeps {
  db: Db;
  local: HostingEngine;
  /** Whether this instance leads now (a lone instance always does). */
  leading(): boolean;
  /** Set when several instances share the database (PostgreSQL): the way to the leader. */
  cluster: { commands: CommandQueue; questions: LeaderQuestions } | null;
  /** How long a follower waits for the leader's answer before saying the work is queued. */
  answerWithinMs: number;
  onError(error: unknown, message: string): void;
}

export class ClusterEngine {
  /** Wakes a follower asked the leader for, by app. */
  private readonly wakesSent = new Map<string, Promise<void>>();

  constructor(private readonly deps: ClusterEngineDeps) {}

  get logs() {
    return this.deps.local.logs;
  }
  get routes() {
    return this.deps.local.routes;
  }
  get paths() {
    return this.deps.local.paths;
  }
  get health() {
    return this.deps.local.health;
  }
  get sandbox() {
    return this.deps.local.sandbox;
  }
  get terminals() {
    return this.deps.local.terminals;
  }
  received(app: { id: string }, deploymentId: string, line: string) {
    return this.deps.local.received(app, deploymentId, line);
  }
  appDataPath(appId: string, file: string) {
    return this.deps.local.appDataPath(appId, file);
  }
  appEndpoint(service: { host: string; port: number }) {
    return this.deps.local.appEndpoint(service);
  }
  /** Only the leader supervises instances: on a follower the leader's health checks see the same failure. */
  upstreamFailed(slug: string, instanceId: string, why: string): void {
    if (this.deps.leading()) this.deps.local.upstreamFailed(slug, instanceId, why);
  }

  /** A new app (its row written): the follower's own table answers at once, the leader's snapshot confirms it. */
  async registerApp(app: AppRef): Promise<void> {
    if (this.deps.leading()) return this.deps.local.registerApp(app);
    this.deps.local.routes.unavailable(app.slug, "CREATED");
    await this.tell({ kind: "register", appId: app.id });
  }

  /** Queues a deployment; on a follower it is in the leader's queue when this resolves (run now or once one leads). */
  async enqueue(app: AppRef, deploymentId: string): Promise<void> {
    if (this.deps.leading()) return this.deps.local.enqueue(app, deploymentId);
    await this.cluster().commands.send({ kind: "deploy", appId: app.id, deploymentId });
  }

  async cancel(appId: string, deploymentId: string): Promise<boolean> {
    return (await this.either(() => this.cancelHere(appId, deploymentId), { kind: "cancel", appId, deploymentId })) === true;
  }

  /** On the leader: from its queue, or still in the command queue (its deploy command not taken yet). */
  private async cancelHere(appId: string, deploymentId: string): Promise<boolean> {
    if (await this.deps.local.cancel(appId, deploymentId)) return true;
    const waiting = await this.deps.db.deployment.updateMany({ where: { id: deploymentId, status: "QUEUED" }, data: { status: "CANCELED", error: "Canceled before it was built.", finishedAt: new Date() } });
    return waiting.count === 1;
  }

  /** What the leader's supervisors hold for the app; nothing runs as far as anyone knows while no instance leads. */
  async runtime(appId: string): Promise<EngineRuntime> {
    if (this.deps.leading()) return this.deps.local.runtime(appId);
    const answer = (await this.cluster().questions.ask("runtime", appId)) as EngineRuntime | null;
    return answer ? withDates(answer) : NOTHING_RUNS;
  }

  /** Instances change in the background (the new number is in the database already): nothing waits for the leader. */
  scale(app: AppRef, instances: number): Promise<void> {
    if (this.deps.leading()) return this.deps.local.scale(app, instances);
    return this.tell({ kind: "scale", appId: app.id, instances });
  }

  scaleWorkers(app: AppRef, type: string, quantity: number): Promise<void> {
    if (this.deps.leading()) return this.deps.local.scaleWorkers(app, type, quantity);
    return this.tell({ kind: "scaleWorkers", appId: app.id, type, quantity });
  }

  /** The app's health-check settings changed (written to the database by the caller): the checks read them next. */
  async settingsChanged(app: AppRef, healthcheck: unknown): Promise<void> {
    this.deps.local.health.set(app.id, healthcheck);
    if (!this.deps.leading()) await this.tell({ kind: "settingsChanged", appId: app.id });
  }

  async stop(app: AppRef): Promise<void> {
    await this.either(() => this.deps.local.stop(app), { kind: "stop", appId: app.id });
  }

  async restart(app: AppRef, live: Parameters<HostingEngine["restart"]>[1]): Promise<void> {
    await this.either(() => this.deps.local.restart(app, live), { kind: "restart", appId: app.id });
  }

  async envChanged(app: AppRef): Promise<void> {
    await this.either(() => this.deps.local.envChanged(app), { kind: "envChanged", appId: app.id });
  }

  /**
   * Starts a sleeping app (a request to it arrived here); resolves once this instance's route serves it, or shows
   * why it does not (a start that failed). On a follower the leader starts it, and its route copy follows.
   */
  wake(app: AppRef, live: Parameters<HostingEngine["wake"]>[1]): Promise<void> {
    if (this.deps.leading()) return this.deps.local.wake(app, live);
    // One wake command per app at a time, however many requests wait for it here.
    let waking = this.wakesSent.get(app.id);
    if (!waking) {
      waking = this.wakeThroughLeader(app).finally(() => this.wakesSent.delete(app.id));
      this.wakesSent.set(app.id, waking);
    }
    return waking;
  }

  private async wakeThroughLeader(app: AppRef): Promise<void> {
    settle(await this.cluster().commands.send({ kind: "wake", appId: app.id }, this.deps.answerWithinMs));
    await this.deps.local.routes.leaves(app.slug, "sleeping", ROUTE_COPY_WITHIN_MS);
  }

  /** The app's sleepAfterMinutes changed (written by the caller): whether an edge sends its requests through a router. */
  async sleepSettingChanged(app: AppRef & { sleepAfterMinutes: number | null }): Promise<void> {
    if (!this.deps.leading()) return this.tell({ kind: "sleepSettingChanged", appId: app.id });
    this.deps.local.routes.sleepsWhenIdle(app.slug, app.sleepAfterMinutes !== null);
    // The edge routes it so before the API answers.
    await this.deps.local.routes.flush();
  }

  async whileStopped<T>(app: AppRef, fn: () => Promise<T>): Promise<T> {
    if (this.deps.leading()) return this.deps.local.whileStopped(app, fn);
    const paused = await this.either(() => this.deps.local.pause(app), { kind: "pause", appId: app.id });
    try {
      return await fn();
    } finally {
      await this.either(() => this.deps.local.resume(app, paused as Paused), { kind: "resume", appId: app.id, paused });
    }
  }

  async remove(app: AppRef): Promise<void> {
    // The follower's table forgets the app at once; the leader stops it and removes its releases.
    if (!this.deps.leading()) {
      this.deps.local.routes.remove(app.slug);
      await this.deps.local.routes.flush();
    }
    await this.either(() => this.deps.local.remove(app), { kind: "remove", appId: app.id, slug: app.slug });
  }

  /** On the leader: a command a follower sent, with the app as the database has it now. */
  async handle(command: EngineCommand): Promise<unknown> {
    const { local, db } = this.deps;
    if (command.kind === "remove") return local.remove({ id: command.appId, slug: command.slug });
    const app = await db.app.findUnique({ where: { id: command.appId }, include: { liveDeployment: true } });
    if (!app) throw new NotFoundError("That app no longer exists.");
    switch (command.kind) {
      case "deploy":
        return this.deployWaiting(app, command.deploymentId);
      case "cancel":
        return this.cancelHere(app.id, command.deploymentId);
      case "stop":
        return local.stop(app);
      case "restart":
        if (!app.liveDeployment) throw new RelayedError("The app has no live release to restart: deploy it first.", 409, "conflict");
        return local.restart(app, app.liveDeployment);
      case "scale":
        return local.scale(app, command.instances);
      case "scaleWorkers":
        return local.scaleWorkers(app, command.type, command.quantity);
      case "settingsChanged":
        return void local.health.set(app.id, app.healthcheck);
      case "envChanged":
        return local.envChanged(app);
      case "register":
        return local.registerApp(app);
      case "pause":
        return local.pause(app);
      case "resume":
        return local.resume(app, command.paused as Paused);
      case "wake":
        return local.wake(app, app.liveDeployment);
      case "sleepSettingChanged":
        return local.routes.sleepsWhenIdle(app.slug, app.sleepAfterMinutes !== null);
    }
  }

  /**
   * A follower's deploy, if its deployment still waits (a boot may have queued it already) and no newer one of the
   * app came first (commands are not handled in order): an older one never replaces a newer one.
   */
  private async deployWaiting(app: AppRef, deploymentId: string): Promise<void> {
    const { db, local } = this.deps;
    const deployment = await db.deployment.findUnique({ where: { id: deploymentId }, select: { status: true, createdAt: true } });
    if (deployment?.status !== "QUEUED") return;
    const newer = await db.deployment.findFirst({ where: { appId: app.id, createdAt: { gt: deployment.createdAt } }, select: { id: true } });
    if (!newer) return local.enqueue(app, deploymentId);
    await db.deployment.updateMany({ where: { id: deploymentId, status: "QUEUED" }, data: { status: "SUPERSEDED", error: `Superseded by a newer deployment (${newer.id}) before it was built.`, finishedAt: new Date() } });
  }

  /** A command for the leader, queued without waiting for it (a failure to queue is logged). */
  private async tell(command: EngineCommand): Promise<void> {
    await this.cluster()
      .commands.send(command)
      .catch((error: unknown) => this.deps.onError(error, `queueing the engine's ${command.kind} command`));
  }

  /** The local engine when leading; else the command, through the leader, answered or reported queued. */
  private async either<T>(here: () => Promise<T>, command: EngineCommand): Promise<T | unknown> {
    if (this.deps.leading()) return here();
    return settle(await this.cluster().commands.send(command, this.deps.answerWithinMs));
  }

  private cluster() {
    // A follower exists only where several instances share a database: never without the queue.
    if (!this.deps.cluster) throw new Error("A follower without a cluster queue");
    return this.deps.cluster;
  }
}

function settle(result: CommandResult | Unanswered): unknown {
  if (result === "withdrawn") throw new EngineUnavailableError("No Slipway instance leads the cluster right now, so nothing was done: try again in a few seconds.");
  if (result === "queued") throw new EngineUnavailableError("No Slipway instance answered in time: this is queued and happens as soon as one leads.");
  if (!result.ok) throw new RelayedError(result.error.message, result.error.status, result.error.code, result.error.details);
  return result.value;
}

/** The leader's answer came as JSON: its instants are Dates again. */
function withDates(runtime: EngineRuntime): EngineRuntime {
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    ...runtime,
    processes: runtime.processes.map((p) => ({ ...p, startedAt: date(p.startedAt) })),
    workers: runtime.workers.map((w) => ({ ...w, instances: w.instances.map((i) => ({ ...i, startedAt: date(i.startedAt) })) })),
  };
}
