// A user's webhooks: created with a URL the outbound guard lets through and a list of events, the signing secret
// shown once (kept sealed: each delivery needs it to sign); their delivery log; a test delivery on request. Also
// the user's choice of mails (deploy.failed, app.crashed).
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client.ts";
import { InvalidRequestError, NotFoundError, QuotaExceededError } from "../errors.ts";
import type { Deliveries } from "../notifications/deliveries.ts";
import { EVENTS, isEventName, TEST_EVENT } from "../notifications/events.ts";
import type { OutboundGuard } from "../platform/outbound.ts";
import type { Acting, AuditService } from "./audit.ts";
import type { Page } from "./pages.ts";

/** Enough for a few receivers per event; each event costs a row per webhook. */
export const MAX_WEBHOOKS = 20;
const MAX_URL = 2000;
const MAX_DESCRIPTION = 200;

export const WEBHOOK_SCHEMES = ["https:", "http:"];

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string | null;
}

export function createWebhookService(deps: { db: Db; guard: OutboundGuard; deliveries: Deliveries; audit: AuditService }) {
  const { db, guard, deliveries, audit } = deps;

  async function mine(ownerId: string, id: string) {
    const hook = await db.webhook.findUnique({ where: { id } });
    if (!hook || hook.ownerId !== ownerId) throw new NotFoundError(`You have no webhook "${id}".`);
    return hook;
  }

  function checkEvents(events: string[]): string[] {
    const unknown = events.filter((event) => !isEventName(event));
    if (unknown.length) {
      const message = `unknown event${unknown.length > 1 ? "s" : ""} ${unknown.map((e) => `"${e}"`).join(", ")}. Events: ${EVENTS.join(", ")}.`;
      throw new InvalidRequestError(`events: ${message}`, { events: message });
    }
    if (!events.length) throw new InvalidRequestError("events: choose at least one event.", { events: `Choose at least one of ${EVENTS.join(", ")}.` });
    return [...new Set(events)];
  }

  return {
    list: (ownerId: string) => db.webhook.findMany({ where: { ownerId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),

    get: mine,

    /** The new webhook and its signing secret, shown this once. */
    async create(by: Acting, input: WebhookInput) {
      const description = input.description?.trim() || null;
      if (description && description.length > MAX_DESCRIPTION) {
        throw new InvalidRequestError(`description: at most ${MAX_DESCRIPTION} characters.`, { description: `At most ${MAX_DESCRIPTION} characters.` });
      }
      if (input.url.length > MAX_URL) throw new InvalidRequestError(`url: at most ${MAX_URL} characters.`, { url: `At most ${MAX_URL} characters.` });
      const events = checkEvents(input.events);
      const url = await guard.checkUrl(input.url.trim(), "url", WEBHOOK_SCHEMES);
      if ((await db.webhook.count({ where: { ownerId: by.id } })) >= MAX_WEBHOOKS) {
        throw new QuotaExceededError(`You have ${MAX_WEBHOOKS} webhooks, the most an account may have: delete one first.`);
      }
      const id = `wh_${randomBytes(10).toString("hex")}`;
      const secret = `whsec_${randomBytes(24).toString("base64url")}`;
      const hook = await db.webhook.create({
        data: { id, ownerId: by.id, url: url.href, events: events.join(","), description, secretSealed: deliveries.sealSecret(id, secret) },
      });
      await audit.by(by, "webhook.create", { type: "webhook", id }, { url: url.origin, events });
      return { ...hook, secret };
    },

    async remove(by: Acting, id: string): Promise<boolean> {
      const hook = await mine(by.id, id);
      await db.webhook.deleteMany({ where: { id: hook.id } });
      await audit.by(by, "webhook.delete", { type: "webhook", id }, { url: new URL(hook.url).origin });
      return true;
    },

    /** The newest deliveries first, a page at a time (the log keeps DELIVERIES_KEPT). */
    async deliveries(ownerId: string, id: string, page: Page) {
      const hook = await mine(ownerId, id);
      return db.delivery.findMany({
        where: { webhookId: hook.id },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
      });
    },

    /** A "ping" delivery, whatever the webhook's events, answered once its first try is over (then in the log). */
    async sendTest(ownerId: string, id: string) {
      const hook = await mine(ownerId, id);
      const [deliveryId] = await deliveries.enqueue([hook.id], TEST_EVENT, { webhook: { id: hook.id, url: hook.url }, message: "A test delivery from Slipway." }, true);
      return db.delivery.findUniqueOrThrow({ where: { id: deliveryId } });
    },

    async setEmailNotifications(by: Acting, on: boolean) {
      const user = await db.user.update({ where: { id: by.id }, data: { emailNotifications: on } });
      await audit.by(by, on ? "notifications.mail_on" : "notifications.mail_off", { type: "user", id: by.id });
      return user;
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
