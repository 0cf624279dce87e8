// Notifications: the user's webhooks, their delivery logs and test deliveries, and the mails about failed deploys
// and crash loops.
import type { RestRoute } from "../types.ts";

export const webhooksRoutes: RestRoute[] = [
  {
    method: "POST",
    path: "/api/webhooks",
    tag: "notifications",
    summary:
      "Create a webhook `{url, events, description?}`: the answer holds `secret`, shown this once. 400 naming the field for a URL that is not http(s), holds credentials or reaches a loopback, link-local or private address (unless OUTBOUND_ALLOWED_HOSTS lists it), or an unknown event",
    document: `mutation CreateWebhook($input: CreateWebhookInput!) { createWebhook(input: $input) { ... on Webhook { ...WebhookFields secret } ...ErrorFields } }`,
    input: "input",
    status: 201,
  },
  {
    method: "GET",
    path: "/api/webhooks",
    tag: "notifications",
    summary: "Your webhooks, oldest first (never their secrets)",
    document: `query Webhooks { webhooks { ...WebhookFields } }`,
  },
  {
    method: "DELETE",
    path: "/api/webhooks/:id",
    tag: "notifications",
    summary: "Delete a webhook and its delivery log",
    document: `mutation DeleteWebhook($id: ID!) { deleteWebhook(id: $id) }`,
    status: 204,
  },
  {
    method: "GET",
    path: "/api/webhooks/:id/deliveries",
    tag: "notifications",
    summary: "The webhook's delivery log, newest first (50; the log keeps the last 100): each event's status, tries, the receiver's last answer and the next try",
    document: `query WebhookDeliveries($id: ID!) { webhookDeliveries(id: $id) { ...WebhookDeliveryFields } }`,
  },
  {
    method: "POST",
    path: "/api/webhooks/:id/test",
    tag: "notifications",
    summary: 'Send a "ping" delivery now, whatever the webhook\'s events: answers the delivery once its first try is over (the receiver has 10 s); retried like any other',
    document: `mutation SendTestWebhook($id: ID!) { sendTestWebhook(id: $id) { ... on WebhookDelivery { ...WebhookDeliveryFields } ...ErrorFields } }`,
  },
  {
    method: "PUT",
    path: "/api/account/notifications",
    tag: "notifications",
    summary: "Turn the mails about failed deploys (deploy.failed) and crash loops (app.crashed) on or off: `{emailNotifications: true|false}`",
    document: `mutation SetEmailNotifications($enabled: Boolean!) { setEmailNotifications(enabled: $enabled) { emailNotifications } }`,
    variables: ({ body }) => ({ enabled: (body as { emailNotifications?: unknown } | null)?.emailNotifications }),
  },
];
