// Log drains of an app (REST: /api/apps/:slug/drains): where its build, runtime and run lines are forwarded.
import { InvalidRequestError, NotFoundError, QuotaExceededError } from "../../errors.ts";
import type { DrainView } from "../../services/drains.ts";
import { builder } from "../builder.ts";
import { acting } from "../context.ts";

const READ = { "read:apps": true } as const;
const WRITE = { "write:apps": true } as const;

export const LogDrain = builder.objectRef<DrainView>("LogDrain").implement({
  description:
    "Where an app's log lines go: syslog:// or syslog+tls:// (RFC 5424, octet-counted; APP-NAME the app's slug, PROCID the process) or https:// (POSTed batches of JSON lines)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "drn_…" }),
    url: t.exposeString("url"),
    sent: t.exposeFloat("sent", { description: "Lines the receiver took, over every instance (counted every few seconds)" }),
    dropped: t.exposeFloat("dropped", {
      description: "Lines dropped because the receiver was down or slow: each drain holds up to 10,000 waiting lines, the app's log says when it drops",
    }),
    lastError: t.exposeString("lastError", { nullable: true, description: "Why the last failed delivery failed" }),
    lastErrorAt: t.expose("lastErrorAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.prismaObjectField("App", "drains", (t) =>
  t.field({
    type: [LogDrain],
    authScopes: READ,
    description: "Log drains, oldest first",
    resolve: (app, _args, ctx) => ctx.services.drains.ofApp(app.id),
  }),
);

const AddLogDrainInput = builder.inputType("AddLogDrainInput", {
  fields: (t) => ({
    url: t.string({
      description: "syslog://host:port, syslog+tls://host:port or https://…; never a loopback, link-local or private address unless the operator allows it",
    }),
  }),
});

builder.queryField("appDrains", (t) =>
  t.withAuth(READ).field({
    type: [LogDrain],
    description: "An app's log drains, oldest first",
    args: { slug: t.arg.string() },
    resolve: (_root, { slug }, ctx) => ctx.services.drains.list(ctx.viewer.user.id, slug),
  }),
);

builder.mutationFields((t) => ({
  addLogDrain: t.withAuth(WRITE).field({
    type: LogDrain,
    description: "Forward the app's build, runtime and run lines to a URL (at most 5 drains per app)",
    args: { slug: t.arg.string(), input: t.arg({ type: AddLogDrainInput }) },
    errors: { types: [InvalidRequestError, QuotaExceededError, NotFoundError] },
    resolve: (_root, { slug, input }, ctx) => ctx.services.drains.add(acting(ctx), slug, input),
  }),
  removeLogDrain: t.withAuth(WRITE).boolean({
    description: "Stop forwarding the app's lines to a drain",
    args: { slug: t.arg.string(), id: t.arg.id() },
    resolve: (_root, { slug, id }, ctx) => ctx.services.drains.remove(acting(ctx), slug, String(id)),
  }),
}));
