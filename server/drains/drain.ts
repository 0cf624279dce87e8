// One configured drain: a bounded queue of the app's lines and one loop that hands them to its transport in
// batches, one batch at a time. A receiver that is down or slow only fills the queue (past its capacity lines are
// dropped and counted): the log store's enqueue never waits. A batch that fails is tried again with back-off;
// after MAX_TRIES it is dropped (counted), so a receiver that refuses one batch does not stop the rest.
import type { Clock } from "../hosting/clock.ts";
import type { LogLineRecord } from "../hosting/logs/store.ts";
import { LineQueue } from "./line-queue.ts";

export interface DrainTransport {
  /** Most lines handed over at once. */
  readonly batchLines: number;
  /** How long lines wait for more to join their batch. */
  readonly lingerMs: number;
  /** Resolves once the receiver took the lines (written to its connection, or a 2xx answer); rejects saying why. */
  deliver(lines: LogLineRecord[]): Promise<void>;
  close(): void;
}

/** Lines waiting per drain. */
export const DRAIN_CAPACITY = 10_000;
export const MAX_TRIES = 5;
const BACKOFF_MS = [1000, 2000, 4000, 8000, 16_000, 30_000];

export class Drain {
  private readonly queue: LineQueue<LogLineRecord>;
  /** Totals since this drain was set up here. */
  sent = 0;
  dropped = 0;
  lastError: string | null = null;
  lastErrorAt: Date | null = null;
  private pumping = false;
  private closed = false;
  private timer: unknown = null;
  private wake: (() => void) | null = null;
  private failures = 0;

  constructor(
    readonly id: string,
    readonly url: string,
    private readonly transport: DrainTransport,
    private readonly clock: Clock,
    capacity = DRAIN_CAPACITY,
  ) {
    this.queue = new LineQueue(capacity);
  }

  get waiting(): number {
    return this.queue.size;
  }

  enqueue(lines: LogLineRecord[]): void {
    if (this.closed) return;
    for (const line of lines) if (!this.queue.push(line)) this.dropped += 1;
    if (this.pumping || this.timer) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      void this.pump();
    }, this.transport.lingerMs);
  }

  close(): void {
    this.closed = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.wake?.();
    this.transport.close();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    let tries = 0;
    try {
      while (!this.closed && this.queue.size > 0) {
        const batch = this.queue.peek(this.transport.batchLines);
        try {
          await this.transport.deliver(batch);
          this.queue.remove(batch.length);
          this.sent += batch.length;
          tries = 0;
          this.failures = 0;
        } catch (error) {
          this.lastError = error instanceof Error ? error.message : String(error);
          this.lastErrorAt = new Date(this.clock.now());
          tries += 1;
          if (tries >= MAX_TRIES) {
            this.queue.remove(batch.length);
            this.dropped += batch.length;
            tries = 0;
          }
          await this.pause(BACKOFF_MS[Math.min(this.failures++, BACKOFF_MS.length - 1)]);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      this.wake = () => {
        this.clock.clearTimeout(this.timer);
        this.timer = null;
        this.wake = null;
        resolve();
      };
      this.timer = this.clock.setTimeout(() => this.wake?.(), ms);
    });
  }
}
