// Webhook deliveries: each event becomes one row per subscribed webhook (the body signed is the one stored, so a
// retry sends the same bytes under the same X-Slipway-Delivery), tried at once by the instance that saw the event,
// then retried by the leader's round with back-off until it succeeds or its tries run out. A try claims its row
// first (nextAttemptAt moved past the try's deadline), so two instances never send it at once.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client.ts";
import type { Clock } from "../hosting/clock.ts";
import type { OutboundGuard } from "../platform/outbound.ts";
import type { Sealer } from "../services/sealed.ts";
import { send, SEND_TIMEOUT_MS, type SendOutcome } from "./send.ts";

/** After the first try: the first retry within a minute, six tries over about an hour and 40 minutes. */
export const RETRY_DELAYS_MS = [30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 60 * 60_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** How often the leader looks for retries due. */
export const RETRY_CHECK_MS = 5_000;
/** A claimed try that never recorded its outcome (its instance died) is tried again after this. */
const CLAIM_MS = SEND_TIMEOUT_MS + 50_000;
/** Delivery log entries kept per webhook. */
export const DELIVERIES_KEPT = 100;

export interface DeliveryDeps {
  db: Db;
  guard: OutboundGuard;
  sealer: Sealer;
  clock: Clock;
  onError(error: unknown, message: string): void;
}

export const newDeliveryId = () => `dlv_${randomBytes(12).toString("hex")}`;

export class Deliveries {
  private timer: unknown = null;
  private readonly underway = new Set<Promise<unknown>>();

  constructor(private readonly deps: DeliveryDeps) {}

  /** A webhook's signing secret as it is kept (sealed to the webhook's id). */
  sealSecret(webhookId: string, secret: string): string {
    return this.deps.sealer.seal(webhookId, secret);
  }

  /**
   * Records EVENT for each webhook and tries each now, in the background, or before answering with `waitForFirstTry`
   * (a test delivery: its answer shows how the first try went).
   */
  async enqueue(webhookIds: string[], event: string, data: Record<string, unknown>, waitForFirstTry = false): Promise<string[]> {
    const { db, clock } = this.deps;
    const createdAt = new Date(clock.now());
    const rows = webhookIds.map((webhookId) => {
      const id = newDeliveryId();
      const body = JSON.stringify({ id, event, createdAt: createdAt.toISOString(), data });
      return { id, webhookId, event, body, createdAt, nextAttemptAt: createdAt };
    });
    if (!rows.length) return [];
    await db.delivery.createMany({ data: rows });
    const tries = rows.map((row) => this.attempt(row.id));
    if (waitForFirstTry) await Promise.all(tries);
    else for (const tried of tries) this.track(tried);
    for (const webhookId of webhookIds) this.track(this.prune(webhookId));
    return rows.map((row) => row.id);
  }

  /** The delivery log stays bounded: finished deliveries past the newest DELIVERIES_KEPT go. */
  private async prune(webhookId: string): Promise<void> {
    const { db } = this.deps;
    const old = await db.delivery.findMany({ where: { webhookId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: DELIVERIES_KEPT, select: { id: true } });
    if (old.length) await db.delivery.deleteMany({ where: { id: { in: old.map((row) => row.id) }, status: { not: "PENDING" } } });
  }

  /** Tries every delivery whose retry is due (the leader's round; tests call it after moving the clock). */
  async retryDue(): Promise<void> {
    const due = await this.deps.db.delivery.findMany({
      where: { status: "PENDING", nextAttemptAt: { lte: new Date(this.deps.clock.now()) } },
      select: { id: true },
      orderBy: { nextAttemptAt: "asc" },
      take: 100,
    });
    await Promise.all(due.map((row) => this.attempt(row.id)));
  }

  /** The leader's retry round, every RETRY_CHECK_MS until stop(). */
  start(): void {
    if (this.timer) return;
    const round = () => {
      this.timer = this.deps.clock.setTimeout(() => {
        const retrying = this.retryDue();
        this.track(retrying); // settled() waits for it
        void retrying.catch(() => {}).finally(() => this.timer && round());
      }, RETRY_CHECK_MS);
    };
    round();
  }

  stop(): void {
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Tries in flight have recorded their outcome (shutdown, tests). */
  async settled(): Promise<void> {
    while (this.underway.size) await Promise.allSettled([...this.underway]);
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error) => this.deps.onError(error, "delivering webhooks")).finally(() => this.underway.delete(tracked));
    this.underway.add(tracked);
  }

  /** One try, if this caller wins the claim on it. */
  private async attempt(id: string): Promise<void> {
    const { db, clock, guard, sealer } = this.deps;
    const now = clock.now();
    const claimed = await db.delivery.updateMany({
      where: { id, status: "PENDING", nextAttemptAt: { lte: new Date(now) } },
      data: { nextAttemptAt: new Date(now + CLAIM_MS) },
    });
    if (!claimed.count) return;
    const row = await db.delivery.findUnique({ where: { id }, include: { webhook: true } });
    if (!row) return;
    const secret = sealer.open(row.webhookId, row.webhook.secretSealed);
    const outcome: SendOutcome = secret
      ? await send(guard, { url: row.webhook.url, secret, deliveryId: row.id, event: row.event, body: row.body })
      : { ok: false, responseStatus: null, error: "the webhook's secret could not be read (the platform's key changed)", durationMs: 0 };
    const attempts = row.attempts + 1;
    const retryIn = RETRY_DELAYS_MS[attempts - 1];
    const status = outcome.ok ? "SUCCEEDED" : attempts >= MAX_ATTEMPTS || !secret ? "FAILED" : "PENDING";
    // updateMany: the webhook (and its log) may have been deleted while the try ran.
    await db.delivery.updateMany({
      where: { id },
      data: {
        status,
        attempts,
        responseStatus: outcome.responseStatus,
        error: outcome.error,
        durationMs: outcome.durationMs,
        lastAttemptAt: new Date(now),
        nextAttemptAt: status === "PENDING" ? new Date(clock.now() + retryIn) : null,
      },
    });
  }
}
