import { EventEmitter, on } from "node:events";
import { Redis } from "ioredis";
import { subscription } from "./iterate.ts";
import type { PubSub } from "./types.ts";

/** One subscriber connection per process; payloads fan out locally to every subscription of a topic. */
export class RedisPubSub implements PubSub {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly local = new EventEmitter().setMaxListeners(0);
  private readonly counts = new Map<string, number>();

  constructor(url: string, private readonly prefix: string) {
    this.publisher = new Redis(url, { maxRetriesPerRequest: 2 });
    this.subscriber = new Redis(url, { maxRetriesPerRequest: 2 });
    this.subscriber.on("message", (channel: string, message: string) => {
      this.local.emit(channel.slice(this.prefix.length), JSON.parse(message));
    });
  }

  async publish(topic: string, payload: unknown): Promise<void> {
    await this.publisher.publish(this.prefix + topic, JSON.stringify(payload ?? null));
  }

  async subscribe(topic: string): Promise<AsyncIterableIterator<unknown>> {
    const events = on(this.local, topic);
    const count = (this.counts.get(topic) ?? 0) + 1;
    this.counts.set(topic, count);
    if (count === 1) await this.subscriber.subscribe(this.prefix + topic);
    return subscription(events, async () => {
      const left = (this.counts.get(topic) ?? 1) - 1;
      if (left > 0) return void this.counts.set(topic, left);
      this.counts.delete(topic);
      await this.subscriber.unsubscribe(this.prefix + topic).catch(() => {});
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.publisher.quit(), this.subscriber.quit()].map((p) => p.catch(() => {})));
  }
}
