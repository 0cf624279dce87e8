// The life of one instance, as tables a reader can check against the README: every state, the events it reacts
// to, and where each one leads. An event a state does not list is a no-op (say, a crash of an instance already
// being stopped is simply its stop). Workers (worker.1, clock.2, …) move through TRANSITIONS, driven by
// process-group.ts; web instances through WEB_TRANSITIONS, driven by the supervisor and its health monitor (their
// restarts after a crash are their slot's, so an exited web instance is done: a new one takes its slot).
/** Per state, the events it reacts to and the state each leads to. */
type Table<S extends string, E extends string> = Readonly<Record<S, Readonly<Partial<Record<E, S>>>>>;

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

export const TRANSITIONS: Table<InstanceState, InstanceEvent> = {
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

/** A web instance takes traffic while healthy (or, when none of the release's is, while it runs at all). */
export type WebState = "starting" | "healthy" | "unhealthy" | "stopping" | "exited";

export type WebEvent =
  /** It passed a health check: the start's, a periodic one, or an adopted instance's first. */
  | "passed"
  /** It failed the periodic check `failures` times in a row, or the router could not reach it: out of rotation. */
  | "failing"
  /** It kept failing past HEALTHCHECK_RESTART_AFTER: the monitor stops it (its exit is a crash like any other). */
  | "stuck"
  /** Its process tree exited, for any reason. */
  | "exited";

export const WEB_TRANSITIONS: Table<WebState, WebEvent> = {
  starting: { passed: "healthy", stuck: "stopping", exited: "exited" },
  healthy: { failing: "unhealthy", stuck: "stopping", exited: "exited" },
  unhealthy: { passed: "healthy", stuck: "stopping", exited: "exited" },
  stopping: { exited: "exited" },
  exited: {},
};

/** Where `event` leads a web instance from `state`, or null when that state ignores it. */
export function nextWebState(state: WebState, event: WebEvent): WebState | null {
  return WEB_TRANSITIONS[state][event] ?? null;
}
