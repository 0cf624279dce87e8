// What a follower asks the leader about what only the leader's memory holds (the instances running now), over
// pub/sub: answered within a short wait, or not at all (no instance leads, or it is busy), and the caller then shows
// that nothing is known to run. Never used for work: that goes through the durable command queue (commands.ts).
import { randomUUID } from "node:crypto";
import type { PubSub } from "../pubsub/index.ts";

const QUESTIONS = "cluster:questions";
const answersTo = (instance: string) => `cluster:answers:${instance}`;

interface Question {
  from: string;
  id: string;
  kind: string;
  about: string;
}

export type Answerer = (kind: string, about: string) => Promise<unknown> | unknown;

export class LeaderQuestions {
  private readonly me = randomUUID();
  private readonly waiting = new Map<string, (value: unknown) => void>();
  private readonly subscriptions = new Set<AsyncIterableIterator<unknown>>();
  private answering: AsyncIterableIterator<unknown> | null = null;

  constructor(private readonly deps: { pubsub: PubSub; waitMs: number; onError(error: unknown, message: string): void }) {}

  async start(): Promise<void> {
    this.follow(await this.deps.pubsub.subscribe(answersTo(this.me)), (message) => {
      const { id, value } = message as { id: string; value: unknown };
      this.waiting.get(id)?.(value);
    });
  }

  /** The leader's answer, or null when none came within the wait. */
  ask(kind: string, about: string): Promise<unknown> {
    const id = randomUUID();
    const answer = new Promise<unknown>((resolve) => {
      const timer = setTimeout(() => done(null), this.deps.waitMs);
      const done = (value: unknown) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(value);
      };
      this.waiting.set(id, done);
    });
    const question: Question = { from: this.me, id, kind, about };
    void this.deps.pubsub.publish(QUESTIONS, question).catch(() => this.waiting.get(id)?.(null));
    return answer;
  }

  /** While leading: answers every question with `answer`. */
  async answer(answer: Answerer): Promise<void> {
    if (this.answering) return;
    this.answering = await this.deps.pubsub.subscribe(QUESTIONS);
    this.follow(this.answering, (message) => {
      const q = message as Question;
      void Promise.resolve(answer(q.kind, q.about))
        .then((value) => this.deps.pubsub.publish(answersTo(q.from), { id: q.id, value: value ?? null }))
        .catch((error: unknown) => this.deps.onError(error, `answering a follower's ${q.kind} question`));
    });
  }

  async stopAnswering(): Promise<void> {
    const answering = this.answering;
    this.answering = null;
    if (answering) this.subscriptions.delete(answering);
    await answering?.return?.();
  }

  async close(): Promise<void> {
    for (const subscription of this.subscriptions) await subscription.return?.();
    for (const done of this.waiting.values()) done(null);
  }

  private follow(subscription: AsyncIterableIterator<unknown>, onMessage: (message: unknown) => void): void {
    this.subscriptions.add(subscription);
    void (async () => {
      try {
        for await (const message of subscription) onMessage(message);
      } catch (error) {
        this.deps.onError(error, "listening to the cluster's questions");
      }
    })();
  }
}
