// One deployment at a time per app. A newer deployment replaces one still waiting (which ends SUPERSEDED);
// a waiting one can be canceled outright, a running one is aborted.

export interface QueueHooks {
  run(appId: string, deploymentId: string, signal: AbortSignal): Promise<void>;
  superseded(appId: string, deploymentId: string, by: string): Promise<void>;
  canceled(appId: string, deploymentId: string): Promise<void>;
}

interface AppQueue {
  running?: { id: string; abort: AbortController; done: Promise<void> };
  waiting?: string;
}

export class DeployQueue {
  private readonly apps = new Map<string, AppQueue>();

  constructor(private readonly hooks: QueueHooks) {}

  /** Queues the deployment (once: queueing one that waits or runs already changes nothing). */
  async enqueue(appId: string, deploymentId: string): Promise<void> {
    const queue = this.apps.get(appId) ?? {};
    if (queue.waiting === deploymentId || queue.running?.id === deploymentId) return;
    this.apps.set(appId, queue);
    const replaced = queue.waiting;
    queue.waiting = deploymentId;
    if (replaced) await this.hooks.superseded(appId, replaced, deploymentId);
    if (!queue.running) this.next(appId, queue);
  }

  /** Whether the deployment was waiting or running here (and is now canceled or being aborted). */
  async cancel(appId: string, deploymentId: string): Promise<boolean> {
    const queue = this.apps.get(appId);
    if (queue?.waiting === deploymentId) {
      queue.waiting = undefined;
      await this.hooks.canceled(appId, deploymentId);
      return true;
    }
    if (queue?.running?.id === deploymentId) {
      queue.running.abort.abort();
      return true;
    }
    return false;
  }

  /** Cancels what waits and aborts what runs for an app; resolves once nothing runs. */
  async drop(appId: string): Promise<void> {
    const queue = this.apps.get(appId);
    if (!queue) return;
    queue.waiting = undefined;
    queue.running?.abort.abort();
    await queue.running?.done;
    this.apps.delete(appId);
  }

  async close(): Promise<void> {
    await Promise.all([...this.apps.keys()].map((appId) => this.drop(appId)));
  }

  private next(appId: string, queue: AppQueue): void {
    const id = queue.waiting;
    queue.waiting = undefined;
    if (!id) {
      queue.running = undefined;
      return;
    }
    const abort = new AbortController();
    const done = this.hooks.run(appId, id, abort.signal).catch(() => {}).finally(() => this.next(appId, queue));
    queue.running = { id, abort, done };
  }
}
