// An app's environment variables (REST: /api/apps/:slug/env).
import { builder } from "../builder.ts";
import { acting } from "../context.ts";

export const EnvVar = builder.objectRef<{ key: string; value: string }>("EnvVar").implement({
  fields: (t) => ({ key: t.exposeString("key"), value: t.exposeString("value") }),
});

builder.scalarType("EnvVars", {
  description: 'A JSON object of variables: {"KEY": "value", …}',
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.queryField("appEnv", (t) =>
  t.withAuth({ "read:apps": true }).field({
    type: [EnvVar],
    description: "An app's environment variables, sorted by key",
    args: { slug: t.arg.string() },
    resolve: (_root, { slug }, ctx) => ctx.services.env.list(ctx.viewer.user.id, slug),
  }),
);

builder.mutationFields((t) => ({
  setEnv: t.withAuth({ "write:apps": true }).field({
    type: [EnvVar],
    description: "Add or replace variables; answers the whole set. A running app restarts with them.",
    args: { slug: t.arg.string(), vars: t.arg({ type: "EnvVars" }) },
    resolve: (_root, { slug, vars }, ctx) => ctx.services.env.set(acting(ctx), slug, vars),
  }),
  unsetEnv: t.withAuth({ "write:apps": true }).boolean({
    description: "Remove a variable (true when it existed). A running app restarts without it.",
    args: { slug: t.arg.string(), key: t.arg.string() },
    resolve: (_root, { slug, key }, ctx) => ctx.services.env.unset(acting(ctx), slug, key),
  }),
}));
