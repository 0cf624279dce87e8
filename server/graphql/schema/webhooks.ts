// Notifications: a user's webhooks (REST: /api/webhooks), their delivery logs and test deliveries, and whether
// Slipway mails them about failed deploys and crash loops.
import { InvalidRequestError, NotFoundError, QuotaExceededError } from "../../errors.ts";
import { EVENT_DESCRIPTIONS, EVENTS } from "../../notifications/events.ts";
import { builder } from "../builder.ts";
import { pageArgs, pageCost, pageOf } from "../pages.ts";
import { acting } from "../context.ts";
import { User } from "./user.ts";

const READ = { "read:apps": true } as const;
const WRITE = { "write:apps": true } as const;
const OWN_ACCOUNT = { "read:user": true } as const;
const CHANGE_ACCOUNT = { "write:user": true } as const;

interface WebhookShape {
  id: string;
  url: string;
  events: string;
  description: string | null;
  createdAt: Date;
  secret?: string;
}

interface DeliveryShape {
  id: string;
  event: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  error: string | null;
  durationMs: number | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
}

const EventInfo = builder.objectRef<{ name: string; description: string }>("WebhookEvent").implement({
  description: "An event a webhook may subscribe to",
  fields: (t) => ({ name: t.exposeString("name"), description: t.exposeString("description") }),
});

export const Webhook = builder.objectRef<WebhookShape>("Webhook").implement({
  description: "Events POSTed to a URL, signed: X-Slipway-Signature-256 is sha256=<HMAC-SHA256(secret, raw body) hex>",
  fields: (t) => ({
    id: t.exposeID("id", { description: "wh_…" }),
    url: t.exposeString("url"),
    events: t.stringList({ description: "The events it receives", resolve: (hook) => hook.events.split(",") }),
    description: t.exposeString("description", { nullable: true }),
    secret: t.string({
      nullable: true,
      description: "The signing secret (whsec_…): only in createWebhook's answer, never again",
      resolve: (hook) => hook.secret ?? null,
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    deliveries: t.withAuth(READ).field({
      type: [WebhookDelivery],
      description: "Its delivery log, newest first, a page at a time (the last 100 are kept)",
      args: pageArgs(t.arg, "id"),
      complexity: pageCost,
      resolve: (hook, args, ctx) => ctx.services.webhooks.deliveries(ctx.viewer.user.id, hook.id, pageOf(args)),
    }),
  }),
});

const WebhookDelivery = builder.objectRef<DeliveryShape>("WebhookDelivery").implement({
  description: "One event sent to a webhook, and where its tries stand (a retry keeps its id: X-Slipway-Delivery)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "dlv_…, sent as X-Slipway-Delivery and as the body's id" }),
    event: t.exposeString("event", { description: 'The event, or "ping" for a test delivery' }),
    status: t.exposeString("status", { description: "PENDING (tried again at nextAttemptAt), SUCCEEDED (a 2xx answer) or FAILED (6 tries without one)" }),
    attempts: t.exposeInt("attempts"),
    nextAttemptAt: t.expose("nextAttemptAt", { type: "DateTime", nullable: true }),
    responseStatus: t.exposeInt("responseStatus", { nullable: true, description: "The receiver's HTTP status at the last try; null when it did not answer" }),
    error: t.exposeString("error", { nullable: true, description: "Why the last try failed" }),
    durationMs: t.exposeInt("durationMs", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastAttemptAt: t.expose("lastAttemptAt", { type: "DateTime", nullable: true }),
  }),
});

const CreateWebhookInput = builder.inputType("CreateWebhookInput", {
  fields: (t) => ({
    url: t.string({ description: "https:// (or http://) URL; never a loopback, link-local or private address unless the operator allows it" }),
    events: t.stringList({ description: `Any of ${EVENTS.join(", ")}` }),
    description: t.string({ required: false }),
  }),
});

builder.objectFields(User, (t) => ({
  emailNotifications: t.withAuth(OWN_ACCOUNT).exposeBoolean("emailNotifications", {
    description: "Whether Slipway mails the user about failed deploys (deploy.failed) and crash loops (app.crashed)",
  }),
}));

builder.queryFields((t) => ({
  webhooks: t.withAuth(READ).field({
    type: [Webhook],
    description: "The viewer's webhooks, oldest first",
    resolve: (_root, _args, ctx) => ctx.services.webhooks.list(ctx.viewer.user.id),
  }),
  webhook: t.withAuth(READ).field({
    type: Webhook,
    description: "One of the viewer's webhooks (not_found otherwise)",
    args: { id: t.arg.id() },
    errors: { types: [NotFoundError] },
    resolve: (_root, { id }, ctx) => ctx.services.webhooks.get(ctx.viewer.user.id, String(id)),
  }),
  webhookDeliveries: t.withAuth(READ).field({
    type: [WebhookDelivery],
    description: "A webhook's delivery log, newest first, a page at a time (the last 100 are kept)",
    args: { id: t.arg.id(), ...pageArgs(t.arg, "id") },
    // Not pageCost: a cost function reads the arguments, and REST's documents are measured without their variables
    // (the required id); the log holds at most 100 small rows.
    resolve: (_root, { id, ...args }, ctx) => ctx.services.webhooks.deliveries(ctx.viewer.user.id, String(id), pageOf(args)),
  }),
  webhookEvents: t.field({
    type: [EventInfo],
    description: "The events a webhook may subscribe to",
    resolve: () => EVENTS.map((name) => ({ name, description: EVENT_DESCRIPTIONS[name] })),
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.withAuth(WRITE).field({
    type: Webhook,
    description: "A webhook for the viewer's events; its answer holds the signing secret, shown this once",
    args: { input: t.arg({ type: CreateWebhookInput }) },
    errors: { types: [InvalidRequestError, QuotaExceededError] },
    resolve: (_root, { input }, ctx) => ctx.services.webhooks.create(acting(ctx), input),
  }),
  deleteWebhook: t.withAuth(WRITE).boolean({
    description: "Delete a webhook and its delivery log; deliveries still due are not sent",
    args: { id: t.arg.id() },
    resolve: (_root, { id }, ctx) => ctx.services.webhooks.remove(acting(ctx), String(id)),
  }),
  sendTestWebhook: t.withAuth(WRITE).field({
    type: WebhookDelivery,
    description: 'Send a "ping" delivery now (whatever the webhook\'s events); answers once its first try is over',
    args: { id: t.arg.id() },
    errors: { types: [NotFoundError] },
    resolve: (_root, { id }, ctx) => ctx.services.webhooks.sendTest(ctx.viewer.user.id, String(id)),
  }),
  setEmailNotifications: t.withAuth(CHANGE_ACCOUNT).field({
    type: User,
    description: "Turn the mails about failed deploys and crash loops on or off",
    args: { enabled: t.arg.boolean() },
    resolve: (_root, { enabled }, ctx) => ctx.services.webhooks.setEmailNotifications(acting(ctx), enabled),
  }),
}));
