// An app's metrics: CPU, memory, requests, 5xx and latency per step over a range, and by process type.
// REST: GET /api/apps/:slug/metrics?from=&to=&step=; App.metrics; live: the appMetrics subscription.
import { InvalidRequestError, NotFoundError } from "../../errors.ts";
import type { AppMetrics, MetricSeries } from "../../services/metrics.ts";
import { builder } from "../builder.ts";
import { App } from "./apps.ts";

const READ = { "read:apps": true } as const;

builder.scalarType("MetricSeries", {
  description: 'A list of [ISO time of the step\'s start, value] pairs; the value is null where nothing was measured: [["2026-11-29T03:00:00.000Z", 0.25], …]',
  serialize: (value) => value,
});

builder.scalarType("ProcessMetrics", {
  description: 'By process type, its cpu and memory series and its restarts (the most failures in a row of one of its instances): {"web": {"cpu": […], "memory": […], "restarts": […]}, "worker": {…}}',
  serialize: (value) => value,
});

const AppMetricSeries = builder.objectRef<AppMetrics["series"]>("AppMetricSeries").implement({
  fields: (t) => {
    const series = (key: keyof AppMetrics["series"], description: string) => t.field({ type: "MetricSeries", description, resolve: (s) => s[key] as MetricSeries });
    return {
      cpu: series("cpu", "Cores used, summed over the app's instances (1 = one core busy)"),
      memory: series("memory", "Bytes of memory used, summed over the app's instances"),
      memoryLimit: series("memoryLimit", "The memory limit of those instances, summed (bytes)"),
      requests: series("requests", "Requests the router answered for the app in each step"),
      errors: series("errors", "Of those, answers with a 5xx status (the app's, or the router's 502/503/504 pages)"),
      latencyP50: series("latencyP50", "Median time from the router taking a request to the response headers (ms)"),
      latencyP95: series("latencyP95", "95th percentile of that time (ms)"),
    };
  },
});

const AppMetricsRef = builder.objectRef<AppMetrics>("AppMetrics").implement({
  description: "An app's metrics, one value per step (kept at one-minute resolution for METRICS_RETENTION_DAYS)",
  fields: (t) => ({
    from: t.expose("from", { type: "DateTime" }),
    to: t.expose("to", { type: "DateTime" }),
    step: t.exposeInt("step", { description: "Seconds per point" }),
    series: t.expose("series", { type: AppMetricSeries }),
    byProcess: t.field({ type: "ProcessMetrics", resolve: (m) => m.byProcess }),
  }),
});

const rangeArgs = {
  from: { description: "ISO 8601; default: an hour before to" },
  to: { description: "ISO 8601; default: now" },
  step: { description: "Seconds (a multiple of 60) or a duration such as 5m or 1h; default: the smallest giving at most 500 points" },
};

builder.objectFields(App, (t) => ({
  metrics: t.field({
    type: AppMetricsRef,
    authScopes: READ,
    description: "CPU, memory, requests and latency over a range (at most 1000 points, within METRICS_RETENTION_DAYS)",
    args: {
      from: t.arg.string({ required: false, ...rangeArgs.from }),
      to: t.arg.string({ required: false, ...rangeArgs.to }),
      step: t.arg.string({ required: false, ...rangeArgs.step }),
    },
    resolve: (app, args, ctx) => ctx.services.metrics.ofApp(app, args),
  }),
}));

builder.queryFields((t) => ({
  appMetrics: t.withAuth(READ).field({
    type: AppMetricsRef,
    description: "An app's metrics over a range (not_found for an app that is not the viewer's; invalid_request naming the limit past METRICS_RETENTION_DAYS or 1000 points)",
    args: {
      slug: t.arg.string(),
      from: t.arg.string({ required: false, ...rangeArgs.from }),
      to: t.arg.string({ required: false, ...rangeArgs.to }),
      step: t.arg.string({ required: false, ...rangeArgs.step }),
    },
    errors: { types: [NotFoundError, InvalidRequestError] },
    resolve: (_root, { slug, ...range }, ctx) => ctx.services.metrics.mine(ctx.viewer.user.id, slug, range),
  }),
}));

builder.subscriptionField("appMetrics", (t) =>
  t.withAuth(READ).field({
    type: AppMetricsRef,
    description: "The app's metrics over the last `seconds` (default an hour) now, and again after each minute recorded",
    args: {
      slug: t.arg.string(),
      seconds: t.arg.int({ required: false, description: "How far back from now (default 3600; cut to METRICS_RETENTION_DAYS)" }),
      step: t.arg.string({ required: false, ...rangeArgs.step }),
    },
    subscribe: (_root, { slug }, ctx) => ctx.services.metrics.watch(ctx.viewer.user.id, slug),
    resolve: (_event, { slug, seconds, step }, ctx) => {
      const now = ctx.services.metrics.now();
      const span = Math.min(seconds ?? 3600, ctx.services.metrics.retentionSeconds);
      return ctx.services.metrics.mine(ctx.viewer.user.id, slug, { from: new Date(now - span * 1000).toISOString(), step });
    },
  }),
);
