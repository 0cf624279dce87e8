// webhooks, webhooks:add <url>, webhooks:test <id>, webhooks:deliveries <id>, webhooks:remove <id>: the account's
// webhooks. Adding one prints its signing secret, the only time it is shown.
import { Api, unwrap, type GlobalOptions } from "../api.ts";
import { CreateWebhookMutation, DeleteWebhookMutation, SendTestWebhookMutation, WebhookDeliveriesQuery, WebhooksQuery } from "../documents.ts";
import type { CliDeliveryFragment } from "../gql/graphql.ts";
import { CliError, color, print, printJson, printTable, status } from "../output.ts";

type Options = GlobalOptions & { json?: boolean };
type AddOptions = Options & { events: string; description?: string };

function outcome(delivery: CliDeliveryFragment): string {
  const answer = delivery.responseStatus === null ? "" : ` (answered ${delivery.responseStatus})`;
  return `${status(delivery.status)}${answer}`;
}

export async function list(options: Options) {
  const api = Api.connect(options);
  const { webhooks } = await api.graphql(WebhooksQuery, {});
  if (options.json) return printJson(webhooks);
  if (!webhooks.length) return print("No webhooks. Add one with `slipway webhooks:add <url> --events deploy.failed,app.crashed`.");
  printTable(
    ["ID", "URL", "EVENTS", "NOTE"],
    webhooks.map((hook) => [hook.id, hook.url, hook.events.join(","), hook.description ?? ""]),
  );
}

export async function add(url: string, options: AddOptions) {
  const api = Api.connect(options);
  const events = options.events.split(",").map((e) => e.trim()).filter(Boolean);
  const hook = unwrap((await api.graphql(CreateWebhookMutation, { input: { url, events, description: options.description ?? null } })).createWebhook);
  if (!("id" in hook)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(hook);
  print(`Added webhook ${color.bold(hook.id)} to ${hook.url} for ${hook.events.join(", ")}.`);
  print();
  print(`Its signing secret, shown this once: ${color.bold(hook.secret ?? "")}`);
  print(color.dim("Each delivery carries X-Slipway-Signature-256: sha256=<HMAC-SHA256(secret, raw body) in hex>."));
}

export async function test(id: string, options: Options) {
  const api = Api.connect(options);
  const delivery = unwrap((await api.graphql(SendTestWebhookMutation, { id })).sendTestWebhook);
  if (!("event" in delivery)) throw new CliError("Unexpected answer from the server.");
  if (options.json) return printJson(delivery);
  print(`Sent a test delivery (${delivery.id}): ${outcome(delivery)}${delivery.error ? `, ${delivery.error}` : ""}.`);
  if (delivery.status !== "SUCCEEDED") throw new CliError(`The receiver did not take it; Slipway tries again in 30 s (see \`slipway webhooks:deliveries ${id}\`).`);
}

export async function deliveries(id: string, options: Options) {
  const api = Api.connect(options);
  const { webhookDeliveries } = await api.graphql(WebhookDeliveriesQuery, { id });
  if (options.json) return printJson(webhookDeliveries);
  if (!webhookDeliveries.length) return print(`No deliveries yet. Send a test with \`slipway webhooks:test ${id}\`.`);
  printTable(
    ["DELIVERY", "EVENT", "STATUS", "TRIES", "WHEN", "ERROR"],
    webhookDeliveries.map((d) => [d.id, d.event, outcome(d), d.attempts, new Date(d.createdAt).toISOString(), d.error ?? ""]),
  );
}

export async function remove(id: string, options: Options) {
  const api = Api.connect(options);
  await api.graphql(DeleteWebhookMutation, { id });
  print(`Deleted webhook ${id}: it gets no more events.`);
}
