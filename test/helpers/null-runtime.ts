// The null runtime: instances that run nothing. A test starts them through the same contract the engine uses,
// makes them exit when it wants (crash) and sees every start and stop; stop() settles at once, as a process that
// honours SIGTERM would. Failing starts are queued with failNextStart().
import type { ExitInfo, Instance, InstanceSpec } from "../../server/platform/runtime/types.ts";

export interface NullInstance extends Instance {
  spec: InstanceSpec;
  /** The process exits by itself (a crash, or a clean exit). */
  exit(info?: Partial<ExitInfo>): void;
  /** Stopped through stop() (not exited by itself). */
  stopped: boolean;
  /** Its process is gone, however. */
  done: boolean;
}

export class NullRuntime {
  readonly started: NullInstance[] = [];
  private failures: Error[] = [];
  private count = 0;

  /** The next start() rejects with this error. */
  failNextStart(error = new Error("the sandbox could not be set up")): void {
    this.failures.push(error);
  }

  start = async (spec: InstanceSpec): Promise<Instance> => {
    const failure = this.failures.shift();
    if (failure) throw failure;
    let settle!: (info: ExitInfo) => void;
    const exited = new Promise<ExitInfo>((resolve) => (settle = resolve));
    const instance: NullInstance = {
      spec,
      instanceId: spec.instanceId || `null-${++this.count}`,
      appKey: spec.appKey,
      pid: 0,
      target: { host: "127.0.0.1", port: 0 },
      exited,
      stopped: false,
      done: false,
      exit: (info = {}) => {
        instance.done = true;
        settle({ code: info.code ?? 1, signal: info.signal ?? null });
      },
      stop: async () => {
        if (!instance.done) instance.stopped = true;
        instance.done = true;
        settle({ code: null, signal: "SIGTERM" });
        await exited;
      },
    };
    this.started.push(instance);
    return instance;
  };

  /** The instances still running (started, not exited). */
  running(): NullInstance[] {
    return this.started.filter((i) => !i.done);
  }

  /** Crashes a running instance by its spec's index (the first one running with it). */
  crash(index: number, info: Partial<ExitInfo> = {}): NullInstance {
    const instance = this.running().find((i) => i.spec.index === index);
    if (!instance) throw new Error(`no running instance with index ${index}`);
    instance.exit(info);
    return instance;
  }
}
