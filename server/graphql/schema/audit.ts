// The audit log for administrators (REST: GET /api/admin/audit): who did what to which target, when and from
// where. Read-only here: entries are written by the services as actions happen, and never changed or deleted.
import { InvalidRequestError } from "../../errors.ts";
import { builder } from "../builder.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";

builder.prismaObject("AuditEvent", {
  description: "One recorded action",
  fields: (t) => ({
    id: t.exposeID("id"),
    actorId: t.exposeString("actorId", { nullable: true, description: "Null for an anonymous attempt" }),
    actorName: t.exposeString("actorName", { nullable: true, description: "The actor's handle when it acted" }),
    action: t.exposeString("action", { description: 'A dotted verb, like "admin.user.suspend"' }),
    targetType: t.exposeString("targetType", { nullable: true }),
    targetId: t.exposeString("targetId", { nullable: true }),
    details: t.string({
      nullable: true,
      description: "Non-secret context as a JSON object (never a value or a secret)",
      resolve: (e) => (e.details === null ? null : JSON.stringify(e.details)),
    }),
    ip: t.exposeString("ip", { nullable: true, description: "The address the action came from" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.queryField("auditEvents", (t) =>
  t.withAuth({ admin: true }).prismaField({
    type: ["AuditEvent"],
    description: "The audit log, newest first, a page at a time",
    args: {
      actor: t.arg.string({ required: false, description: "The actor's id or handle" }),
      action: t.arg.string({ required: false, description: 'An action, or a prefix ending in a dot ("admin.")' }),
      target: t.arg.string({ required: false, description: "The target's id" }),
      since: t.arg({ type: "DateTime", required: false, description: "From this time on" }),
      until: t.arg({ type: "DateTime", required: false, description: "Before this time" }),
      ...pageArgs(t.arg, "id"),
    },
    complexity: pageCost,
    resolve: (_query, _root, args, ctx) => {
      for (const key of ["actor", "action", "target"] as const) {
        if ((args[key]?.length ?? 0) > 200) throw new InvalidRequestError(`Filter ${key} with at most 200 characters.`, { [key]: "Too long." });
      }
      return ctx.services.audit.list(args, pageOf(args));
    },
  }),
);
