// The runtime driver contract: how the hosting engine runs a user's code, whatever isolates it (sandboxed
// local processes now, containers later). Drivers know nothing of users, quotas, Prisma or GraphQL: the
// engine hands them directories, argv arrays and env maps, and gets back processes and their output.

export type OutputStream = "stdout" | "stderr";

/** Receives a process's raw output as it arrives; the log layer splits, cuts and redacts lines. */
export type OutputSink = (stream: OutputStream, chunk: Buffer) => void;

export interface SandboxLimits {
  memoryBytes: number;
  /** Share of one core, in percent (50 = half a core). */
  cpuPercent: number;
  /** Most processes and threads at once. */
  pids: number;
}

export interface ProcessSpec {
  /** Stable per app (its database id): the driver derives the app's uid, network namespace and cgroup from it. */
  appKey: string;
  /** Absolute directory bound read-write at /app inside the sandbox, and the working directory. */
  workDir: string;
  /**
   * The app's own data directory (its SQLite databases), bound read-write at RuntimeDriver.dataPath inside the
   * sandbox; kept across releases. Only ever the app's own folder.
   */
  dataDir?: string;
  /**
   * Host directories bound read-only at the same path (BUILD_READONLY_PATHS: a package mirror, a CA bundle); builds
   * only.
   */
  readOnlyPaths?: string[];
  /**
   * The app's build cache (Go's module and build caches, pip's wheel cache), bound read-write at BUILD_CACHE_PATH
   * inside the sandbox and kept between builds; builds only, never an app instance.
   */
  cacheDir?: string;
  /**
   * Run inside the sandbox as is: never a shell string built from user input. Empty: the image's own
   * ENTRYPOINT/CMD (container drivers, a release built from a Dockerfile).
   */
  argv: string[];
  /** The whole environment the process sees (the driver adds PORT and what the runtime needs: HOME, PATH). */
  env: Record<string, string>;
  limits: SandboxLimits;
  onOutput: OutputSink;
  /**
   * Which release workDir holds (the deployment that built it; the app's slug): drivers that package releases
   * (docker: an image per release) name and reuse what they make with it. Ignored by the local driver.
   */
  release?: ReleaseRef;
}

export interface ReleaseRef {
  slug: string;
  deploymentId: string;
}

export interface RunSpec extends ProcessSpec {
  /** Killed (SIGKILL to the whole process tree) past this. */
  timeoutMs: number;
  /** Runs the command on this terminal (drivers with `terminals`); without it, stdin is empty. */
  terminal?: RunTerminal;
  /** Aborting kills the process tree (a canceled deploy). */
  signal?: AbortSignal;
}

export interface TerminalSize {
  cols: number;
  rows: number;
}

/**
 * The terminal an interactive run's command runs on: the driver gives it a pty of the window's size, writes what
 * the user types to it, follows the window's size changes, and sends everything the command writes to onOutput
 * (as "stdout": a terminal has one stream). Ctrl-C and the like work as in any terminal (the pty's line
 * discipline); the end of `keys` hangs the command up (SIGHUP).
 */
export interface RunTerminal {
  readonly keys: import("node:stream").Readable;
  /** Calls `listener` with the window's size now, then again at every change. */
  watchSize(listener: (size: TerminalSize) => void): void;
}

/** An image built from the Dockerfile of a release (RuntimeDriver.buildImage). */
export interface ImageBuildSpec {
  appKey: string;
  /** The image becomes this release's image: what start() and adopt() run, what removeRelease() frees. */
  release: ReleaseRef;
  /** The build context: the release directory, with the Dockerfile at its top. */
  contextDir: string;
  dockerfile: string;
  /** Offered to the Dockerfile's ARG lines (BUILD_ENV and the app's env vars); unused ones are ignored. */
  buildArgs: Record<string, string>;
  limits: SandboxLimits;
  /** The builder's output as it comes (its steps, the output of its RUN commands). */
  onOutput: OutputSink;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface ImageBuildResult {
  /** Why the build failed (a RUN that exited non-zero, a FROM that cannot be found), or null: the image is built. */
  error: string | null;
  timedOut: boolean;
  aborted: boolean;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The kernel killed a process of the tree for going past limits.memoryBytes (when the driver can tell). */
  oomKilled?: boolean;
}

export interface RunResult extends ExitInfo {
  timedOut: boolean;
  aborted: boolean;
}

export interface InstanceSpec extends ProcessSpec {
  /** Unique per start; names the instance in logs and in list(). */
  instanceId: string;
  /** Which instance of its type it is (N of web.N, worker.N), for drivers that adopt instances after a platform restart. */
  index?: number;
  /**
   * The process type (a Procfile's worker, clock, …); "web" when unset. Only web gets PORT and a target the router
   * sends requests to.
   */
  process?: string;
}

export interface Instance {
  instanceId: string;
  appKey: string;
  /** The app's own process (what receives SIGTERM), as seen from the platform. */
  pid: number;
  /** Where the platform's router reaches the app's PORT (a process other than web has none: port 0). */
  target: { host: string; port: number };
  /** Settles when the process tree has exited, for any reason. */
  exited: Promise<ExitInfo>;
  /** SIGTERM to the app's own process, SIGKILL to the whole tree after graceMs; resolves once nothing is left. */
  stop(graceMs?: number): Promise<void>;
  /** Its resource use now, for the app's metrics; absent when the driver cannot tell (swarm: tasks on other nodes). */
  stats?(): Promise<InstanceStats | null>;
}

/** What an instance's whole process tree used: null for what the driver could not read. */
export interface InstanceStats {
  /** CPU time since it started, in nanoseconds (the rate between two samples is the cores it used). */
  cpuNanos: number | null;
  memoryBytes: number | null;
  /** Its memory limit, null when it has none the driver knows of. */
  memoryLimitBytes: number | null;
}

export interface SandboxLayer {
  /** e.g. "filesystem", "user", "capabilities", "memory", "cpu", "pids", "network". */
  name: string;
  enforced: boolean;
  /** What exactly is enforced, or why it is not. */
  detail: string;
}

export interface SandboxReport {
  driver: string;
  layers: SandboxLayer[];
}

export interface RuntimeDriver {
  /**
   * An orchestrator that rolls releases out itself (RUNTIME=swarm): the engine updates its services instead of
   * starting instances through start().
   */
  readonly orchestrator?: import("./swarm/orchestrator.ts").SwarmOrchestrator;
  readonly name: string;
  /** Whether run() gives the process RunSpec.terminal (interactive runs). */
  readonly terminals?: boolean;
  /** What this driver enforces on this machine, probed once when it was created. */
  readonly sandbox: SandboxReport;
  /** Where ProcessSpec.dataDir appears inside the app's processes ("/data"), or null: at its host path. */
  readonly dataPath: string | null;
  /** Where the app's processes reach a platform service (the PostgreSQL server of app databases). */
  appEndpoint(service: { host: string; port: number }): { host: string; port: number };
  /** Runs a one-off command (build, release phase) to completion. */
  run(spec: RunSpec): Promise<RunResult>;
  /**
   * Builds a release's image from its Dockerfile (drivers that run images: docker, swarm); afterwards start() and
   * run() with spec.release run that image (its WORKDIR, its ENTRYPOINT/CMD for an empty argv) in the same sandbox.
   */
  buildImage?(spec: ImageBuildSpec): Promise<ImageBuildResult>;
  /** Starts a long-running instance; resolves once spawned, not once it answers HTTP. */
  start(spec: InstanceSpec): Promise<Instance>;
  /** The instances this driver started (or adopted) that are still running. */
  list(): Instance[];
  /**
   * Drivers whose instances outlive the platform (docker, local inside bubblewrap): after a restart, the instance an
   * earlier platform left running for this app, release, process type and index, if it runs exactly what start(spec) would (same argv, env, limits,
   * data binding), and no adopt() took it yet. Its output from now on goes to spec.onOutput; its instanceId is the
   * one it was started with (spec.instanceId is ignored). Null: none, start one. Called at boot, before reap().
   */
  adopt?(spec: InstanceSpec & { index: number }): Promise<Instance | null>;
  /** Removes what an earlier platform process left behind (processes, namespaces, cgroups), except what adopt() took; called at boot. */
  reap(): Promise<void>;
  /** Frees what a release left in the driver (its image) once the engine pruned it; optional. */
  removeRelease?(appKey: string, release: ReleaseRef): Promise<void>;
  /** Frees what an app holds (namespace, cgroup, firewall entries) once its last instance stopped. */
  removeApp(appKey: string): Promise<void>;
  /** Stops every instance and frees everything; a driver with adopt() leaves its instances running for the next boot. */
  close(): Promise<void>;
}
