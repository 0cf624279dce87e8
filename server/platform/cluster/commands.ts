// Work a follower accepts for the engine (a deploy, a stop, a restart, a scale) reaches the leader through a durable
// queue in the PostgreSQL database every instance shares (pg-boss): a follower that dies right after accepting it
// loses nothing, and a leader that dies before taking it leaves it to the next one. The leader answers over pub/sub
// to the instance that waits; one that waited in vain tells its caller the work is queued, never that it failed.
import { randomUUID } from "node:crypto";
import PgBoss from "pg-boss";
import { AppError } from "../../errors.ts";
import type { PubSub } from "../pubsub/index.ts";

/** What the engine is asked to do, by app id: the leader reads everything else from the database. */
export type EngineCommand =
  | { kind: "deploy"; appId: string; deploymentId: string }
  | { kind: "cancel"; appId: string; deploymentId: string }
  | { kind: "stop"; appId: string }
  | { kind: "restart"; appId: string }
  | { kind: "scale"; appId: string; instances: number }
  | { kind: "scaleWorkers"; appId: string; type: string; quantity: number }
  | { kind: "settingsChanged"; appId: string }
  | { kind: "envChanged"; appId: string }
  | { kind: "register"; appId: string }
  | { kind: "remove"; appId: string; slug: string }
  | { kind: "pause"; appId: string }
  | { kind: "resume"; appId: string; paused: unknown };

/** The leader's answer: the command's value, or the error it threw as a transport would show it. */
export type CommandResult = { ok: true; value: unknown } | { ok: false; error: { message: string; status: number; code: string } };

const QUEUE = "engine-commands";
const SENT = "cluster:command-sent";
const DONE = "cluster:command-done";
const CONCURRENT_COMMANDS = 4;

export interface CommandQueueDeps {
  databaseUrl: string;
  pubsub: PubSub;
  /** Whether the queue's tables exist (a follower ever sent a command): the leader then works it from the start. */
  queueExists(): Promise<boolean>;
  onError(error: unknown, message: string): void;
}

type Handler = (command: EngineCommand) => Promise<unknown>;

export class CommandQueue {
  private readonly boss: PgBoss;
  private readonly waiting = new Map<string, (result: CommandResult | "queued") => void>();
  private readonly subscriptions: AsyncIterableIterator<unknown>[] = [];
  private workerIds: string[] = [];
  /** The queue's connection, opened on first use: a lone instance on PostgreSQL never needs it. */
  private opened: Promise<void> | null = null;
  private working: Promise<void> | null = null;

  constructor(private readonly deps: CommandQueueDeps) {
    // Jobs take milliseconds (a deploy job only queues the build): one a leader died holding is retried soon.
    this.boss = new PgBoss({ connectionString: deps.databaseUrl, schema: "pgboss", max: 4, expireInSeconds: 60, retryLimit: 2, retryDelay: 1, application_name: "slipway-engine-queue" });
    this.boss.on("error", (error) => deps.onError(error, "the engine's command queue"));
  }

  /** Listens for the leader's answers. */
  async start(): Promise<void> {
    const done = await this.deps.pubsub.subscribe(DONE);
    this.subscriptions.push(done);
    void this.listen(done, (message) => {
      const { id, result } = message as { id: string; result: CommandResult };
      this.waiting.get(id)?.(result);
    });
  }

  /** Queues the command; with `waitMs`, resolves with the leader's answer, or "queued" when none came in time. */
  async send(command: EngineCommand, waitMs = 0): Promise<CommandResult | "queued"> {
    const id = randomUUID();
    await this.open();
    const answered = waitMs > 0 ? this.answerOf(id, waitMs) : Promise.resolve("queued" as const);
    await this.boss.send(QUEUE, command, { id });
    await this.deps.pubsub.publish(SENT, id).catch(() => {}); // the leader polls anyway
    return answered;
  }

  /**
   * On the leader: runs each command (one delivered again after a leader died holding it must be harmless: see
   * ClusterEngine.handle), from now if commands were ever sent, else from the first one a follower announces.
   */
  async work(handle: Handler): Promise<void> {
    const sent = await this.deps.pubsub.subscribe(SENT);
    this.subscriptions.push(sent);
    void this.listen(sent, () => {
      void this.workWith(handle).then(() => this.workerIds.forEach((id) => this.boss.notifyWorker(id)));
    });
    if (await this.deps.queueExists()) await this.workWith(handle);
  }

  private workWith(handle: Handler): Promise<void> {
    this.working ??= this.open().then(async () => {
      // A slow command (a restart waits for the new instance) does not hold up the others.
      const work = () => this.boss.work<EngineCommand>(QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, ([job]) => this.run(job, handle));
      this.workerIds = await Promise.all(Array.from({ length: CONCURRENT_COMMANDS }, work));
    });
    return this.working.catch((error: unknown) => {
      this.working = null;
      this.deps.onError(error, "working the engine's command queue");
    });
  }

  private async run(job: PgBoss.Job<EngineCommand>, handle: Handler): Promise<void> {
    const result = await handle(job.data).then(
      (value): CommandResult => ({ ok: true, value: value ?? null }),
      (error: unknown): CommandResult => {
        if (error instanceof AppError && error.expose) return { ok: false, error: { message: error.message, status: error.status, code: error.code } };
        this.deps.onError(error, `the engine's ${job.data.kind} command failed`);
        return { ok: false, error: { message: "The engine failed to do this; see the server log.", status: 500, code: "internal" } };
      },
    );
    await this.deps.pubsub.publish(DONE, { id: job.id, result });
  }

  private open(): Promise<void> {
    this.opened ??= (async () => {
      await this.boss.start();
      if (await this.boss.getQueue(QUEUE)) return;
      // Another instance may create it meanwhile.
      await this.boss.createQueue(QUEUE).catch(async (error: unknown) => {
        if (!(await this.boss.getQueue(QUEUE))) throw error;
      });
    })();
    return this.opened.catch((error: unknown) => {
      this.opened = null;
      throw error;
    });
  }

  /** Commands waiting for the leader, and the ones it is handling. */
  async depth(): Promise<{ pending: number; running: number }> {
    if (!this.opened && !(await this.deps.queueExists())) return { pending: 0, running: 0 };
    await this.open();
    const [pending, running] = await Promise.all([this.boss.getQueueSize(QUEUE, { before: "active" }), this.boss.getQueueSize(QUEUE, { before: "completed" })]);
    return { pending, running: running - pending };
  }

  async close(): Promise<void> {
    for (const subscription of this.subscriptions) await subscription.return?.();
    for (const resolve of this.waiting.values()) resolve("queued");
    if (this.opened) await this.boss.stop({ graceful: true, wait: true, timeout: 5000 }).catch(() => {});
  }

  private answerOf(id: string, waitMs: number): Promise<CommandResult | "queued"> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve("queued");
      }, waitMs);
      this.waiting.set(id, (result: CommandResult | "queued") => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(result);
      });
    });
  }

  private async listen(subscription: AsyncIterableIterator<unknown>, onMessage: (message: unknown) => void): Promise<void> {
    try {
      for await (const message of subscription) onMessage(message);
    } catch (error) {
      this.deps.onError(error, "listening to the engine's command queue");
    }
  }
}
