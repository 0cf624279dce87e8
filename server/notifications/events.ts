// The events a webhook can subscribe to, and what each says. Deliveries carry {id, event, createdAt, data}.

export const EVENTS = ["deploy.succeeded", "deploy.failed", "app.crashed", "run.failed", "domain.verified", "quota.decided"] as const;
export type EventName = (typeof EVENTS)[number];

/** What "send test" delivers: no subscription needed, as GitHub's ping. */
export const TEST_EVENT = "ping";

export const EVENT_DESCRIPTIONS: Record<EventName, string> = {
  "deploy.succeeded": "A deployment went live",
  "deploy.failed": "A deployment failed (its build, release phase or start)",
  "app.crashed": "An app is in a crash loop: 5 crashes within 10 minutes (one event per loop)",
  "run.failed": "A one-off or cron run failed or timed out",
  "domain.verified": "A custom domain's DNS check passed",
  "quota.decided": "An administrator approved or denied a limit request",
};

/** Also mailed to the owner, unless they turned mail off. */
export const MAILED_EVENTS: ReadonlySet<EventName> = new Set(["deploy.failed", "app.crashed"]);

export function isEventName(value: string): value is EventName {
  return (EVENTS as readonly string[]).includes(value);
}

/** An event about something of one user's. */
export interface PlatformEvent {
  ownerId: string;
  event: EventName;
  data: Record<string, unknown>;
}
