// One-off runs: a command run once in the app's live release, sandboxed like its processes (`slipway run`).
// REST: /api/apps/:slug/runs, /runs/:id, /runs/:id/cancel; output: appLogs(kind: run, run: id).
import { ConflictError, InvalidRequestError, NotFoundError, QuotaExceededError } from "../../errors.ts";
import { builder } from "../builder.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";
import type { RunOutput as RunOutputView } from "../../services/logs.ts";
import { App } from "./apps.ts";
import { LogLine } from "./logs.ts";

const READ = { "read:apps": true } as const;
const WRITE = { "write:apps": true } as const;
const REST_PAGE = 50;

const RunStatusEnum = builder.enumType("RunStatus", {
  values: {
    QUEUED: { description: "Recorded, not started yet" },
    RUNNING: { description: "Its command runs now" },
    SUCCEEDED: { description: "Exited with code 0" },
    FAILED: { description: "Exited with another code, or ended without one (see error)" },
    TIMED_OUT: { description: "Killed with every process it started, past its timeoutSeconds" },
    CANCELED: { description: "Canceled by its owner: killed with every process it started" },
  } as const,
});

const RunTriggerEnum = builder.enumType("RunTrigger", { values: { api: { description: "Started through the API, the CLI or the dashboard" }, cron: { description: "Started by a cron job" } } as const });

export const Run = builder.prismaObject("Run", {
  description: "A command run once in the app's live release; its output is appLogs(kind: run, run: id)",
  fields: (t) => ({
    id: t.exposeID("id"),
    command: t.exposeString("command", { description: "The shell line, run as /bin/sh -c <command> inside the app's sandbox" }),
    trigger: t.expose("trigger", { type: RunTriggerEnum }),
    cronJobId: t.exposeString("cronJobId", { nullable: true, description: "The cron job that started it (trigger cron)" }),
    status: t.expose("status", { type: RunStatusEnum }),
    exitCode: t.exposeInt("exitCode", { nullable: true, description: "The command's exit code, once it exited by itself" }),
    error: t.exposeString("error", { nullable: true, description: "Why it ended without an exit code of its own (timeout, cancel, platform restart)" }),
    timeoutSeconds: t.exposeInt("timeoutSeconds"),
    deploymentId: t.exposeString("deploymentId", { nullable: true, description: "The deployment whose release it ran in" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true }),
    attachUrl: t.string({
      nullable: true,
      description:
        "For an interactive run still waiting for its terminal: the WebSocket path to attach to (binary frames: keystrokes in, output out; text frames: {type: resize, cols, rows} in, {type: exit, status, exitCode, error} out)",
      resolve: (run, _args, ctx) => (run.status === "QUEUED" && ctx.services.runs.waitsForTerminal(run.id) ? `/api/runs/${run.id}/attach` : null),
    }),
    durationMs: t.int({ nullable: true, description: "From its start to its end", resolve: (r) => (r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null) }),
  }),
});

builder.objectFields(App, (t) => ({
  runs: t.field({
    type: [Run],
    description: "The app's one-off runs, newest first, a page at a time",
    args: pageArgs(t.arg, "id"),
    complexity: pageCost,
    resolve: (app, args, ctx) => ctx.services.runs.list(app.id, pageOf(args)),
  }),
  run: t.field({
    type: Run,
    nullable: true,
    description: "One of the app's runs; null when it has none of that id",
    args: { id: t.arg.id() },
    resolve: (app, { id }, ctx) => ctx.services.runs.ofApp(app.id, String(id)).catch((error: unknown) => (error instanceof NotFoundError ? null : Promise.reject(error))),
  }),
}));

const StartRunInput = builder.inputType("StartRunInput", {
  fields: (t) => ({
    command: t.string({ description: "A shell line, run as /bin/sh -c <command> inside the app's sandbox, in its live release" }),
    timeoutSeconds: t.int({ required: false, description: "1–86400, default 3600: past it the run is killed with every process it started (TIMED_OUT)" }),
    interactive: t.boolean({
      required: false,
      description: "Run on a terminal: the run waits (QUEUED) until a client attaches to Run.attachUrl over a WebSocket (60 s at most), then runs on a pty",
    }),
    cols: t.int({ required: false, description: "The terminal's width in characters, 1–1000 (80)" }),
    rows: t.int({ required: false, description: "The terminal's height in lines, 1–1000 (24)" }),
  }),
});

builder.queryFields((t) => ({
  appRuns: t.withAuth(READ).field({
    type: [Run],
    description: `An app's one-off runs, newest first (cron runs included), ${REST_PAGE} at a time; App.runs takes other page sizes`,
    args: { slug: t.arg.string(), after: t.arg.string({ required: false, description: "The id of the last run of the previous page" }) },
    // A fixed page, so a fixed cost: the REST route's document is priced at boot, without its slug.
    complexity: { field: 10, multiplier: REST_PAGE },
    resolve: (_root, { slug, after }, ctx) => ctx.services.runs.listMine(ctx.viewer.user.id, slug, pageOf({ first: REST_PAGE, after })),
  }),
  appRun: t.withAuth(READ).field({
    type: Run,
    description: "One of an app's runs (not_found otherwise)",
    args: { slug: t.arg.string(), id: t.arg.id() },
    resolve: (_root, { slug, id }, ctx) => ctx.services.runs.mine(ctx.viewer.user.id, slug, String(id)),
  }),
}));

builder.mutationFields((t) => ({
  startRun: t.withAuth(WRITE).field({
    type: Run,
    description: "Run a command once in the app's live release, with its env vars; answers once it runs (RUNNING)",
    args: { slug: t.arg.string(), input: t.arg({ type: StartRunInput }) },
    errors: { types: [InvalidRequestError, NotFoundError, ConflictError, QuotaExceededError] },
    resolve: (_root, { slug, input }, ctx) => ctx.services.runs.start(ctx.viewer.user.id, slug, input),
  }),
  cancelRun: t.withAuth(WRITE).field({
    type: Run,
    description: "Kill a run with every process it started (CANCELED); conflict once it has finished",
    args: { slug: t.arg.string(), id: t.arg.id() },
    errors: { types: [NotFoundError, ConflictError] },
    resolve: (_root, { slug, id }, ctx) => ctx.services.runs.cancel(ctx.viewer.user.id, slug, String(id)),
  }),
}));

const RunOutput = builder.objectRef<RunOutputView>("RunOutput").implement({
  description: "A batch of a run's output lines, with the run as it stands",
  fields: (t) => ({
    lines: t.expose("lines", { type: [LogLine] }),
    run: t.expose("run", { type: Run }),
  }),
});

builder.subscriptionField("runOutput", (t) =>
  t.withAuth(READ).field({
    type: RunOutput,
    description: "A run's output: its history (after `after`), then each new batch, each with the run; it completes once the run finished and every line was sent",
    args: { slug: t.arg.string(), id: t.arg.id(), after: t.arg.string({ required: false, description: "Only lines strictly newer than this timestamp" }) },
    subscribe: (_root, { slug, id, after }, ctx) => ctx.services.logs.watchRun(ctx.viewer.user.id, slug, String(id), after ?? null),
    resolve: (output) => output,
  }),
);
