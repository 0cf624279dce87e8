// An app's processes by type (web, then its Procfile's worker, clock, …) and its formation: how many instances of
// each run. REST: GET /api/apps/:slug/processes, PATCH /api/apps/:slug/formation; App.processes.
import { InvalidRequestError, NotFoundError, QuotaExceededError } from "../../errors.ts";
import type { InstanceView, ProcessView } from "../../services/processes.ts";
import { builder } from "../builder.ts";
import { App } from "./apps.ts";

const READ = { "read:apps": true } as const;
const WRITE = { "write:apps": true } as const;

builder.scalarType("Formation", {
  description: 'A JSON object of process types and how many instances of each to run: {"web": 2, "worker": 1}',
  serialize: (value) => value,
  parseValue: (value) => value,
});

const ProcessStateEnum = builder.enumType("ProcessState", {
  values: {
    STARTING: { description: "Being started (web: not answering its health check yet)" },
    HEALTHY: { description: "web: answers its health check, in rotation" },
    UNHEALTHY: { description: "web: failed its health checks, out of rotation" },
    RUNNING: { description: "A process type beside web, running" },
    CRASHED: { description: "Exited, or did not start: restarted after its back-off" },
    STOPPING: { description: "Scaled down or replaced: stopping (SIGTERM, then SIGKILL after the grace period)" },
  } as const,
});

type ProcessState = "STARTING" | "HEALTHY" | "UNHEALTHY" | "RUNNING" | "CRASHED" | "STOPPING";

const ProcessInstance = builder.objectRef<InstanceView>("ProcessInstance").implement({
  description: "One instance of a process type (web.1, worker.2, …)",
  fields: (t) => ({
    index: t.exposeInt("index", { description: "2 for worker.2" }),
    name: t.exposeString("name", { description: "How log lines name it (LogLine.process)" }),
    instanceId: t.exposeString("instanceId", { nullable: true, description: "The runtime's id of the running instance; null while it restarts" }),
    state: t.field({ type: ProcessStateEnum, resolve: (p) => p.state.toUpperCase() as ProcessState }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true }),
    restarts: t.exposeInt("restarts", { description: "Failures in a row of this instance (reset after a healthy period and on a new release)" }),
  }),
});

export const Process = builder.objectRef<ProcessView>("Process").implement({
  description: "A process type of the live release (a Procfile line) and its instances as they run now",
  fields: (t) => ({
    type: t.exposeString("type", { description: "web, or the Procfile's name for it (worker, clock, …)" }),
    command: t.exposeString("command", { description: "What it runs, as the Procfile (or the builder) says" }),
    quantity: t.exposeInt("quantity", { description: "How many instances should run (scaleProcesses changes it)" }),
    // A few instances each (maxInstances bounds them all): counted as 3, not the default 10.
    instances: t.expose("instances", { type: [ProcessInstance], complexity: { field: 1, multiplier: 3 } }),
  }),
});

builder.objectFields(App, (t) => ({
  processes: t.field({
    type: [Process],
    // A Procfile names a few types: counted as 2, not the default 10.
    complexity: { field: 1, multiplier: 2 },
    description: "The live release's process types, web first, with their instances as they run now (web is absent for a static site)",
    resolve: (app, _args, ctx) => ctx.services.processes.ofApp(app),
  }),
}));

builder.queryFields((t) => ({
  appProcesses: t.withAuth(READ).field({
    type: [Process],
    complexity: { field: 1, multiplier: 2 },
    description: "An app's processes by type (not_found for an app that is not the viewer's)",
    args: { slug: t.arg.string() },
    resolve: (_root, { slug }, ctx) => ctx.services.processes.list(ctx.viewer.user.id, slug),
  }),
}));

builder.mutationFields((t) => ({
  scaleProcesses: t.withAuth(WRITE).field({
    type: [Process],
    description:
      "Run this many instances of each named type (others keep theirs): web at least 1, another type 0 to stop it; every type together within maxInstances. Instances start and stop in the background.",
    args: { slug: t.arg.string(), formation: t.arg({ type: "Formation" }) },
    complexity: { field: 1, multiplier: 2 },
    errors: { types: [NotFoundError, InvalidRequestError, QuotaExceededError], dataField: { complexity: { field: 1, multiplier: 2 } } },
    resolve: (_root, { slug, formation }, ctx) => ctx.services.processes.scale(ctx.viewer.user.id, slug, formation),
  }),
}));
