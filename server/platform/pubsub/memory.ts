import { EventEmitter, on } from "node:events";
import { subscription } from "./iterate.ts";
import type { PubSub } from "./types.ts";

export class MemoryPubSub implements PubSub {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(topic: string, payload: unknown): Promise<void> {
    // A JSON round trip keeps in-process payloads identical to what Redis would deliver.
    this.emitter.emit(topic, JSON.parse(JSON.stringify(payload ?? null)));
  }

  async subscribe(topic: string): Promise<AsyncIterableIterator<unknown>> {
    return subscription(on(this.emitter, topic));
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
