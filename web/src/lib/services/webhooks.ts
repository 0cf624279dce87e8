// Notifications: the viewer's webhooks (create, delete, send a test, read the delivery log) and the mails about
// failed deploys and crash loops. Each function runs one operation and says how it went (a toast, or a Problem).
import { graphql } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { problemFrom } from "./errors";
import { done, failed, mutate, type Outcome } from "./mutate";
import { toast } from "./toast.svelte";

export const NOTIFICATIONS_DEPENDENCY = "app:notifications";

export const WebhookRow = graphql(`
  fragment WebhookRow on Webhook {
    id
    url
    events
    description
    createdAt
  }
`);

export const DeliveryRow = graphql(`
  fragment DeliveryRow on WebhookDelivery {
    id
    event
    status
    attempts
    responseStatus
    error
    durationMs
    createdAt
    nextAttemptAt
  }
`);

export const NotificationsQuery = graphql(`
  query NotificationsPage {
    viewer {
      user {
        id
        emailNotifications
      }
    }
    webhooks {
      ...WebhookRow
    }
    webhookEvents {
      name
      description
    }
  }
`);

const CreateMutation = graphql(`
  mutation CreateWebhook($input: CreateWebhookInput!) {
    createWebhook(input: $input) {
      __typename
      ... on Webhook {
        id
        secret
      }
      ...ErrorFields
    }
  }
`);

const DeleteMutation = graphql(`
  mutation DeleteWebhook($id: ID!) {
    deleteWebhook(id: $id)
  }
`);

const TestMutation = graphql(`
  mutation SendTestWebhook($id: ID!) {
    sendTestWebhook(id: $id) {
      __typename
      ... on WebhookDelivery {
        id
        status
        responseStatus
        error
      }
      ...ErrorFields
    }
  }
`);

const DeliveriesQuery = graphql(`
  query WebhookDeliveries($id: ID!) {
    webhookDeliveries(id: $id, first: 20) {
      ...DeliveryRow
    }
  }
`);

const MailMutation = graphql(`
  mutation SetEmailNotifications($enabled: Boolean!) {
    setEmailNotifications(enabled: $enabled) {
      id
      emailNotifications
    }
  }
`);

export interface WebhookValues {
  url: string;
  events: string[];
  description: string;
}

/** The new webhook's id and its signing secret, shown once. */
export async function createWebhook(values: WebhookValues): Promise<Outcome<{ id: string; secret: string }>> {
  const outcome = await mutate(CreateMutation, { input: { ...values, description: values.description || null } }, "createWebhook", ["Webhook"]);
  if (!outcome.ok) return outcome;
  toast.success("Webhook created. Copy its secret now: it is not shown again.");
  return { ok: true, value: { id: outcome.value.id, secret: outcome.value.secret ?? "" } };
}

export async function deleteWebhook(id: string, url: string): Promise<Outcome> {
  const result = await graphqlClient().mutation(DeleteMutation, { id }).toPromise();
  if (!result.data) return failed(problemFrom(result.error), `Could not delete the webhook to ${url}.`);
  toast.success(`Deleted the webhook to ${url}.`);
  return done;
}

export async function sendTest(id: string): Promise<Outcome> {
  const outcome = await mutate(TestMutation, { id }, "sendTestWebhook", ["WebhookDelivery"]);
  if (!outcome.ok) return outcome;
  const delivery = outcome.value;
  if (delivery.status === "SUCCEEDED") toast.success(`Test delivery answered ${delivery.responseStatus}.`);
  else toast.error(`Test delivery failed: ${delivery.error ?? "no answer"}. Slipway tries it again in 30 s.`);
  return done;
}

export async function loadDeliveries(id: string) {
  const result = await graphqlClient().query(DeliveriesQuery, { id }, { requestPolicy: "network-only" }).toPromise();
  if (!result.data) return failed<never>(problemFrom(result.error));
  return { ok: true as const, value: result.data.webhookDeliveries };
}

export async function setEmailNotifications(enabled: boolean): Promise<Outcome> {
  const result = await graphqlClient().mutation(MailMutation, { enabled }).toPromise();
  if (!result.data) return failed(problemFrom(result.error), "Could not change your mail settings.");
  toast.success(enabled ? "Slipway mails you about failed deploys and crash loops." : "No more mails about failed deploys and crash loops.");
  return done;
}
