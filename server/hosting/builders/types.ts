// The builder contract. Each builder recognises one kind of project and says how to build and run it;
// builders/index.ts owns the order in which they are tried. Builders only read the source directory and
// return argv arrays: the deploy pipeline runs them through the runtime driver (sandboxed), logs them, and
// enforces the time limit.

export interface BuildContext {
  /** The extracted source, which becomes the release directory (built in place). */
  dir: string;
  /** The previous successful release's directory, if any (for reusing node_modules). */
  previousDir?: string;
  /** Writes a line to the deployment's build log (stream "system"). */
  log(line: string): void;
}

/** How a release is served once built: a process listening on PORT, or static files served by the platform. */
export type WebProcess = { kind: "process"; argv: string[] } | { kind: "static"; root: string };

export interface BuildPlan {
  builder: string;
  /** Commands run in order inside the sandbox, in the release directory; any non-zero exit fails the deploy. */
  steps: { label: string; argv: string[] }[];
  /** Runs after the build and before the switch (Procfile `release:`); failing fails the deploy. */
  release?: string[];
  web: WebProcess;
}

export interface Builder {
  name: string;
  /** What this builder looks for, for the log line of an unrecognised project. */
  looksFor: string;
  /** A plan when the project is this builder's kind, else null. May prepare the directory (reuse node_modules). */
  detect(ctx: BuildContext): Promise<BuildPlan | null>;
}
