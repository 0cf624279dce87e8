// Work a follower accepts for the engine (a deploy, a stop, a restart, a scale) reaches the leader through a durable
// queue in the PostgreSQL database every instance shares (pg-boss): a follower that dies right after accepting it
// loses nothing, and a leader that dies before taking it leaves it to the next one. The leader answers over pub/sub
// to the instance that waits. A command nobody took within the wait is withdrawn (the caller is told nothing was
// done), but for the ones that must happen once sent (a deploy, the restart after a restore).
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
  | { kind: "wake"; appId: string }
  | { kind: "sleepSettingChanged"; appId: string }
  | { kind: "resume"; appId: string; paused: unknown };

/** The leader's answer: the command's value, or the error it threw as a transport would show it. */
export type CommandResult = { ok: true; value: unknown } | { ok: false; error: { message: string; status: number; code: string; details?: Record<string, unknown> } };

/** No answer came in time: "withdrawn" (nothing was done), or "queued" (it still happens once a leader takes it). */
export type Unanswered = "withdrawn" | "queued";

const QUEUE = "engine-commands";
const SENT = "cluster:command-sent";
const DONE = "cluster:command-done";
/** A slow command (a restart waits for the new instance) does not hold up the others. */
const CONCURRENT_COMMANDS = 4;
/** How often a leader with no queue yet looks for one (a follower's first announcement may have been lost). */
const LOOK_FOR_QUEUE_MS = 5000;
/** Sent once, they must happen: a deploy (its deployment is accepted), the restart that ends a restore's pause. */
const NEVER_WITHDRAWN = new Set<EngineCommand["kind"]>(["deploy", "resume"]);

export interface CommandQueueDeps {
  databaseUrl: string;
  pubsub: PubSub;
  /** Whether the queue's tables exist (a follower ever sent a command): the leader then works it from the start. */
  queueExists(): Promise<boolean>;
  onError(error: unknown, message: string): void;
}

type Handler = (command: EngineCommand) => Promise<unknown>;

export class CommandQueue {
  private boss: PgBoss | null = null;
  private readonly waiting = new Map<string, (result: CommandResult | "timeout") => void>();
  private readonly subscriptions: AsyncIterableIterator<unknown>[] = [];
  private workerIds: string[] = [];
  /** The queue's connection, opened on first use: a lone instance on PostgreSQL never needs it. */
  private opened: Promise<PgBoss> | null = null;
  private working: Promise<void> | null = null;
  private lookTimer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: CommandQueueDeps) {}

  /** Listens for the leader's answers. */
  async start(): Promise<void> {
    const done = await this.deps.pubsub.subscribe(DONE);
    this.subscriptions.push(done);
    void this.listen(done, (message) => {
      const { id, result } = message as { id: string; result: CommandResult };
      this.waiting.get(id)?.(result);
    });
  }

  /** Queues the command; with `waitMs`, resolves with the leader's answer, or how it stands when none came in time. */
  async send(command: EngineCommand, waitMs = 0): Promise<CommandResult | Unanswered> {
    const boss = await this.open();
    const id = randomUUID();
    const answered = waitMs > 0 ? this.answerOf(id, waitMs) : Promise.resolve("timeout" as const);
    try {
      await boss.send(QUEUE, command, { id });
    } catch (error) {
      this.waiting.get(id)?.("timeout");
      throw error;
    }
    await this.deps.pubsub.publish(SENT, id).catch(() => {}); // the leader polls anyway
    const result = await answered;
    if (result !== "timeout") return result;
    if (NEVER_WITHDRAWN.has(command.kind)) return "queued";
    // Withdrawn unless the leader took it meanwhile (then its answer is lost, not its work).
    await boss.cancel(QUEUE, id).catch(() => {});
    const job = await boss.getJobById(QUEUE, id).catch(() => null);
    return job && job.state !== "cancelled" ? "queued" : "withdrawn";
  }

  /**
   * On the leader: runs each command, once (a job is never retried: a deploy a dead leader held is queued again
   * from its QUEUED row by the next leader's boot), from now if commands were ever sent, else from the first one a
   * follower announces (or finds, looking every few seconds).
   */
  async work(handle: Handler): Promise<void> {
    const sent = await this.deps.pubsub.subscribe(SENT);
    this.subscriptions.push(sent);
    void this.listen(sent, () => {
      void this.workWith(handle).then(() => this.workerIds.forEach((id) => this.boss?.notifyWorker(id)));
    });
    const look = async () => {
      if (!this.working && (await this.deps.queueExists().catch(() => false))) await this.workWith(handle);
    };
    await look();
    this.lookTimer = setInterval(() => void look(), LOOK_FOR_QUEUE_MS);
    this.lookTimer.unref();
  }

  async close(): Promise<void> {
    if (this.lookTimer) clearInterval(this.lookTimer);
    for (const subscription of this.subscriptions) await subscription.return?.();
    for (const resolve of this.waiting.values()) resolve("timeout");
    // A start under way finishes first: pg-boss ignores a stop during its start.
    const boss = await this.opened?.catch(() => null);
    await boss?.stop({ graceful: true, wait: true, timeout: 5000 }).catch(() => {});
  }

  private workWith(handle: Handler): Promise<void> {
    this.working ??= this.open().then(async (boss) => {
      const work = () => boss.work<EngineCommand>(QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, ([job]) => this.run(job, handle));
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
        if (error instanceof AppError && error.expose) return { ok: false, error: { message: error.message, status: error.status, code: error.code, details: error.details } };
        this.deps.onError(error, `the engine's ${job.data.kind} command failed`);
        return { ok: false, error: { message: "The engine failed to do this; see the server log.", status: 500, code: "internal" } };
      },
    );
    // The work is done: a lost answer must not fail the job (the follower says it got none).
    await this.deps.pubsub.publish(DONE, { id: job.id, result }).catch((error: unknown) => this.deps.onError(error, "answering a follower's command"));
  }

  /** The queue's connection; a failed start is tried again from scratch by the next caller. */
  private open(): Promise<PgBoss> {
    this.opened ??= (async () => {
      // Never retried, and expired (failed) after a minute if its leader died holding it.
      const boss = new PgBoss({ connectionString: this.deps.databaseUrl, schema: "pgboss", max: 4, expireInSeconds: 60, retryLimit: 0, application_name: "slipway-engine-queue" });
      boss.on("error", (error) => this.deps.onError(error, "the engine's command queue"));
      this.boss = boss;
      await boss.start();
      if (!(await boss.getQueue(QUEUE))) {
        // Another instance may create it meanwhile.
        await boss.createQueue(QUEUE).catch(async (error: unknown) => {
          if (!(await boss.getQueue(QUEUE))) throw error;
        });
      }
      return boss;
    })();
    return this.opened.catch((error: unknown) => {
      this.opened = null;
      throw error;
    });
  }

  private answerOf(id: string, waitMs: number): Promise<CommandResult | "timeout"> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done("timeout"), waitMs);
      const done = (result: CommandResult | "timeout") => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(result);
      };
      this.waiting.set(id, done);
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
