// The builder contract. Each builder recognises one kind of project and says how to build and run it;
// builders/index.ts owns the order in which they are tried. Builders only read the source directory and
// return argv arrays: the deploy pipeline runs them through the runtime driver (sandboxed), logs them, and
// enforces the time limit.
import type { HealthCheckSpec } from "../health-settings.ts";

export interface BuildContext {
  /** The extracted source, which becomes the release directory (built in place). */
  dir: string;
  /** The previous successful release's directory, if any (for reusing installed dependencies). */
  previousDir?: string;
  /** The app's build cache as the build's commands see it: kept between builds (Go's caches, pip's wheels). */
  cachePath: string;
  /** The runtime driver's name ("local", "docker", "swarm"): a Dockerfile builds only on a container runtime. */
  runtime: string;
  /** Writes a line to the deployment's build log (stream "system"). */
  log(line: string): void;
}

/**
 * How a release is served once built: a process listening on PORT (with the variables its builder sets, such as a
 * virtualenv's PATH, over the app's own), or static files served by the platform. An empty argv runs the release
 * image's own ENTRYPOINT/CMD (a Dockerfile build, on a container runtime).
 */
export type WebProcess =
  | {
      kind: "process";
      argv: string[];
      env?: Record<string, string>;
      healthcheck?: HealthCheckSpec;
      /** What the build log shows for a command Slipway wraps in a script of its own ("bundle exec puma"). */
      shown?: string;
    }
  | { kind: "static"; root: string };

/** What a process of the release sees: the app's env vars, under what its builder set (a virtualenv's PATH). */
export function processEnv(web: WebProcess, appEnv: Record<string, string>): Record<string, string> {
  return web.kind === "process" && web.env ? { ...appEnv, ...web.env } : appEnv;
}

export interface BuildStep {
  /** What the build log calls this step when it fails ("pip install"). */
  label: string;
  argv: string[];
  /** Variables this step needs over the app's and the operator's (GOCACHE, a virtualenv's PATH). */
  env?: Record<string, string>;
}

export interface BuildPlan {
  builder: string;
  /** Commands run in order inside the sandbox, in the release directory; any non-zero exit fails the deploy. */
  steps: BuildStep[];
  /** The release is the image the runtime builds from this Dockerfile of the project (RUNTIME=docker or swarm). */
  image?: { dockerfile: string };
  /** Runs after the build and before the switch (Procfile `release:`), with the web process's env; failing fails the deploy. */
  release?: string[];
  /** How the release is served; a builder leaves it out when the project needs a Procfile web: line to say. */
  web?: WebProcess;
  /** Variables every process of the release gets over the app's own (a virtualenv's PATH); folded into web.env. */
  processEnv?: Record<string, string>;
}

/**
 * A plan once the Procfile was applied: it always says how the release is served, and the Procfile's other process
 * types (type → argv, run with web's env) when it has some.
 */
export type ResolvedPlan = Omit<BuildPlan, "web" | "processEnv"> & { web: WebProcess; processes?: ProcessCommands };

/** A release's process types beside web: type → argv ({"worker": ["/bin/sh", "-c", "node worker.js"]}). */
export type ProcessCommands = Record<string, string[]>;

/** A program a builder needs on the host (and so in every sandbox, which sees the host's /usr read-only). */
export interface Toolchain {
  /** Absolute path of the program, under /usr. */
  command: string;
  /** The Debian package that provides it. */
  debianPackage: string;
  /**
   * The host's installed packages that extend it and that builds use (the host's gems for `bundle install --local`,
   * PHP's extensions): the base image of the container runtimes holds them too, as the local sandbox sees them.
   */
  addOns?: RegExp;
}

export interface Builder {
  name: string;
  /** What this builder looks for, for the log line of an unrecognised project. */
  looksFor: string;
  /** Why the project has no web process when neither the builder nor a Procfile names one, with an example. */
  missingWeb?: string;
  /**
   * The runtimes that can build this builder's projects, for the boot log (all when unset; detect() refuses the
   * others). The local sandbox sees the host's /usr; the container runtimes' base image holds the same toolchains.
   */
  runtimes?: string[];
  /** What the builder runs, checked before it builds and listed at boot. */
  toolchains?: Toolchain[];
  /** What only some projects need (composer for a composer.json), checked by the builder when they do. */
  optionalToolchains?: Toolchain[];
  /** A plan when the project is this builder's kind, else null. May prepare the directory (reuse dependencies). */
  detect(ctx: BuildContext): Promise<BuildPlan | null>;
}
