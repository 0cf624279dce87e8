// Build, runtime and one-off run logs: polled with `after` (REST GET /api/apps/:slug/logs), or live as a subscription
// that sends the history first, then every new batch of lines.
import type { LogLineRecord } from "../../hosting/logs/store.ts";
import type { LogRequest } from "../../services/logs.ts";
import { builder } from "../builder.ts";

const LogKindEnum = builder.enumType("LogKind", {
  values: { build: { description: "A deployment's build" }, runtime: { description: "The app's processes" }, run: { description: "A one-off run's output" } } as const,
});
const LogStreamEnum = builder.enumType("LogStream", { values: ["stdout", "stderr", "system"] as const });

export const LogLine = builder
  .objectRef<LogLineRecord>("LogLine")
  .implement({
    fields: (t) => ({
      timestamp: t.exposeString("timestamp", { description: "ISO-8601 with nine fractional digits; unique and ordered per app: pass it as `after`" }),
      kind: t.expose("kind", { type: LogKindEnum }),
      stream: t.expose("stream", { type: LogStreamEnum }),
      deploymentId: t.exposeString("deploymentId", { nullable: true }),
      instance: t.int({
        nullable: true,
        description: "Which instance of the app wrote the line (1 for web.1, 2 for web.2, …); null for build lines and Slipway's own",
        resolve: (line) => line.instance ?? null,
      }),
      runId: t.string({ nullable: true, description: "The one-off run whose output it is (kind run)", resolve: (line) => line.runId ?? null }),
      process: t.string({
        nullable: true,
        description: "The process that wrote it: web.1, worker.2, release, run.<id>, cron.<id>; null for Slipway's own lines and the build's",
        resolve: (line) => line.process ?? null,
      }),
      line: t.exposeString("line"),
    }),
  });

const logArgs = (t: Parameters<Parameters<typeof builder.queryField>[1]>[0]) => ({
  slug: t.arg.string(),
  kind: t.arg({ type: LogKindEnum, required: false, description: "Default runtime" }),
  after: t.arg.string({ required: false, description: "Only lines strictly newer than this timestamp" }),
  limit: t.arg.int({ required: false, description: "1–1000, default 200" }),
  deployment: t.arg.id({ required: false, description: "For build logs: default the latest deployment" }),
  run: t.arg.id({ required: false, description: "For run logs: default the latest run" }),
});

const idOrNull = (id: string | number | null | undefined) => (id == null ? null : String(id));
const logRequest = ({ deployment, run, ...rest }: { deployment?: string | number | null; run?: string | number | null } & Omit<LogRequest, "deployment" | "run">): LogRequest => ({
  ...rest,
  deployment: idOrNull(deployment),
  run: idOrNull(run),
});

/** One indexed range read of at most 1,000 small rows: ten lines cost like one item of another list. */
const logCost = { field: 10, multiplier: 100 };

builder.queryField("appLogs", (t) =>
  t.withAuth({ "read:apps": true }).field({
    type: [LogLine],
    description: "Without `after`, the newest `limit` lines; with it, the lines after it. Oldest first.",
    args: logArgs(t),
    complexity: logCost,
    resolve: (_root, { slug, ...args }, ctx) => ctx.services.logs.read(ctx.viewer.user.id, slug, logRequest(args)),
  }),
);

builder.subscriptionField("appLogs", (t) =>
  t.withAuth({ "read:apps": true }).field({
    type: [LogLine],
    description: "The history (as appLogs answers it), then each new batch of lines as it is stored",
    args: logArgs(t as never),
    subscribe: (_root, { slug, ...args }, ctx) => ctx.services.logs.watch(ctx.viewer.user.id, slug, logRequest(args)),
    resolve: (lines) => lines,
  }),
);
