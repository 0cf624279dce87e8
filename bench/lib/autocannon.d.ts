// The slice of autocannon 8's API the bench uses (the package ships no types).
declare module "autocannon" {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    workers?: number;
    /** In workers mode the hooks are absolute paths of modules that export the function. */
    requests?: { setupRequest?: string; onResponse?: string }[];
    initialContext?: Record<string, unknown>;
    warmup?: { connections?: number; duration?: number };
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  export interface Instance {
    stop(): void;
  }

  export default function autocannon(options: Options): Promise<Result>;
  /** With a callback: runs until `duration` or stop(), then calls back with the result. */
  export default function autocannon(options: Options, done: (error: Error | null, result: Result) => void): Instance;
}
