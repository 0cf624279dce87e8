// The life of one instance of a process type (worker.1, clock.2, …), as a table a reader can check against the
// README: every state, the events it reacts to, and where each one leads. An event a state does not list is a
// no-op (say, a crash of an instance already being stopped is simply its stop).
export type InstanceState = "starting" | "running" | "crashed" | "stopping" | "stopped";

export type InstanceEvent =
  /** The runtime started its process (or handed over the one an earlier platform left running). */
  | "spawned"
  /** The runtime could not start it (the sandbox, the image). */
  | "spawnFailed"
  /** Its process tree exited, for any reason. */
  | "exited"
  /** Its back-off delay is over: start it again. */
  | "retry"
  /** Scaled down, a new release took over, or the app stopped. */
  | "stop";

export const TRANSITIONS: Readonly<Record<InstanceState, Readonly<Partial<Record<InstanceEvent, InstanceState>>>>> = {
  starting: { spawned: "running", spawnFailed: "crashed", stop: "stopping" },
  running: { exited: "crashed", stop: "stopping" },
  crashed: { retry: "starting", stop: "stopped" },
  stopping: { exited: "stopped", spawnFailed: "stopped" },
  stopped: {},
};

/** Where `event` leads from `state`, or null when that state ignores it. */
export function nextState(state: InstanceState, event: InstanceEvent): InstanceState | null {
  return TRANSITIONS[state][event] ?? null;
}
