// The platform's own metrics, for operators (GET /metrics, Prometheus text format, through prom-client): the API's
// requests by route and status, deployments by status and their durations, running instances, the deploy queue, log
// lines dropped, and Node's own (event-loop lag, memory, CPU). One registry per platform: several servers in one
// process (the tests) keep theirs apart. What the database knows is read at scrape time, nothing on the way.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Db } from "../db/client.ts";

export interface MetricSources {
  db: Db;
  /** Instances of apps' processes running now (the leader's engine; 0 on a follower). */
  runningInstances(): number;
  /** Log lines dropped since the platform started (an app wrote faster than they could be stored). */
  logLinesDropped(): number;
}

export interface PlatformMetrics {
  readonly contentType: string;
  /** One API request answered: its route pattern (never the raw URL: bounded labels), method and status. */
  request(method: string, route: string, status: number): void;
  /** A deployment finished, after `seconds`. */
  deployment(status: string, seconds: number): void;
  render(): Promise<string>;
}

export function createPlatformMetrics(sources: MetricSources): PlatformMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "slipway_" });
  const requests = new Counter({ name: "slipway_http_requests_total", help: "API, GraphQL and OAuth requests answered, by route pattern, method and status", labelNames: ["method", "route", "status"], registers: [registry] });
  const durations = new Histogram({
    name: "slipway_deployment_duration_seconds",
    help: "How long deployments took from their first step to LIVE, FAILED or CANCELED",
    labelNames: ["status"],
    buckets: [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [registry],
  });
  new Gauge({
    name: "slipway_deployments",
    help: "Deployments in the database, by status",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      const rows = await sources.db.deployment.groupBy({ by: ["status"], _count: { _all: true } });
      this.reset();
      for (const row of rows) this.set({ status: row.status }, row._count._all);
    },
  });
  new Gauge({
    name: "slipway_deploy_queue_depth",
    help: "Deployments waiting to be built (QUEUED)",
    registers: [registry],
    async collect() {
      this.set(await sources.db.deployment.count({ where: { status: "QUEUED" } }));
    },
  });
  new Gauge({ name: "slipway_running_instances", help: "Instances of apps' processes running (on the leader)", registers: [registry], collect() { this.set(sources.runningInstances()); } });
  new Gauge({ name: "slipway_log_lines_dropped", help: "Log lines dropped since the platform started (written faster than they could be stored)", registers: [registry], collect() { this.set(sources.logLinesDropped()); } });

  // Label children kept: prom-client hashes the labels on every inc() otherwise.
  const children = new Map<string, { inc(): void }>();
  return {
    contentType: registry.contentType,
    request(method, route, status) {
      const key = `${method} ${route} ${status}`;
      let child = children.get(key);
      if (!child) {
        child = requests.labels(method, route, String(status));
        children.set(key, child);
      }
      child.inc();
    },
    deployment(status, seconds) {
      durations.observe({ status }, seconds);
    },
    render: () => registry.metrics(),
  };
}
