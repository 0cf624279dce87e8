// Health checks: an app's own setting (updateApp's `healthcheck`), and the check its instances get now, with where
// that comes from (the app's setting, its live release's app.json, or the platform's default TCP connect).
import type { HealthCheckSpec, HealthProbe } from "../../hosting/health-settings.ts";
import { builder } from "../builder.ts";

export const HealthCheckInput = builder.inputType("HealthCheckInput", {
  description: "Unset fields take the defaults: no path (a TCP connect to PORT), every 5 s, a 2 s timeout",
  fields: (t) => ({
    path: t.string({ required: false, description: 'GET this path (starting with "/"): a 2xx or 3xx status passes; null: a TCP connect to PORT' }),
    intervalSeconds: t.int({ required: false, description: "1–300, default 5" }),
    timeoutSeconds: t.int({ required: false, description: "1–60 and no more than the interval, default 2" }),
  }),
});

const HealthCheck = builder.objectRef<HealthCheckSpec>("HealthCheck").implement({
  description: "A health check as an app sets it (or its app.json)",
  fields: (t) => ({
    path: t.exposeString("path", { nullable: true, description: "null: a TCP connect to PORT" }),
    intervalSeconds: t.exposeInt("intervalSeconds"),
    timeoutSeconds: t.exposeInt("timeoutSeconds"),
  }),
});

const HealthCheckSourceEnum = builder.enumType("HealthCheckSource", {
  values: {
    APP: { description: "The app's own setting (App.healthcheck)" },
    APP_JSON: { description: 'The "healthcheck" of the live release\'s app.json' },
    DEFAULT: { description: "Neither: the platform's default, a TCP connect to PORT" },
  } as const,
});

const SOURCES = { app: "APP", "app.json": "APP_JSON", default: "DEFAULT" } as const;

const EffectiveHealthCheck = builder.objectRef<HealthProbe>("EffectiveHealthCheck").implement({
  description: "The health check the app's instances get: at start (a release goes live once it passes) and periodically",
  fields: (t) => ({
    path: t.exposeString("path", { nullable: true, description: "null: a TCP connect to PORT" }),
    intervalSeconds: t.float({ resolve: (probe) => probe.intervalMs / 1000 }),
    timeoutSeconds: t.float({ resolve: (probe) => probe.timeoutMs / 1000 }),
    source: t.field({ type: HealthCheckSourceEnum, resolve: (probe) => SOURCES[probe.source] }),
  }),
});

builder.prismaObjectFields("App", (t) => ({
  healthcheck: t.field({
    type: HealthCheck,
    nullable: true,
    description: "The app's own health check (over its app.json's); null when unset",
    resolve: (app) => app.healthcheck as HealthCheckSpec | null,
  }),
  effectiveHealthcheck: t.field({
    type: EffectiveHealthCheck,
    description: "The health check its instances get now, and where it comes from",
    resolve: (app, _args, ctx) => ctx.services.apps.effectiveHealthcheck(app),
  }),
}));
