// What a benchmark suite is: scenarios measured one after another against a baseline of the same run.
import type { BusyProbe } from "./busy.ts";

export interface Target {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Per-request hooks, as absolute paths of CommonJS modules (autocannon loads them in its worker thread). */
  requests?: { setupRequest?: string; onResponse?: string }[];
  /** What those hooks find in their `context`. */
  initialContext?: Record<string, unknown>;
  /** Where the server's busy time is read when it runs in another process (default: this process's main thread). */
  busy?: BusyProbe;
}

/** A fixed request, or one prepared anew for each load run (say, single-use tokens to spend). */
export type TargetSource = Target | ((load: LoadOptions) => Promise<Target>);

export interface Scenario {
  /** Short id used on the command line (`npm run bench -- me:rest`). */
  name: string;
  /** What the table shows. */
  label: string;
  target: TargetSource;
}

/** A ratio a scenario should reach against the baseline. */
export interface RatioTarget {
  scenario: string;
  min: number;
}

/** A suite once set up: servers running, credentials obtained, response bodies checked. */
export interface PreparedSuite {
  baseline: Scenario;
  scenarios: Scenario[];
  /** Lines for RESULTS.md describing the setup (config overrides, what the baseline answers, ...). */
  setupNotes: string[];
  close(): Promise<void>;
}

export interface Suite {
  name: string;
  title: string;
  targets: RatioTarget[];
  /**
   * Measure the baseline again right before each scenario and take each ratio against that run, not against
   * the round's first: on a shared machine whose speed drifts within a minute, adjacent runs agree better.
   */
  pairedBaseline?: boolean;
  /** Runs only when named on the command line (diagnostics). */
  optIn?: boolean;
  setup(): Promise<PreparedSuite>;
  /** The paragraph under the table: what the numbers mean. */
  explain(rows: Row[]): string;
}

export interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  totalRequests: number;
  /** Busy time of the servers' thread (event-loop utilization) per answered request, in µs. */
  serverMicrosPerRequest: number;
}

export interface Row extends Measurement {
  scenario: Scenario;
  /** requests/s divided by the baseline's requests/s of the same run (median over rounds). */
  ratio: number;
}

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}
