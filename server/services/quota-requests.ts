// Limit requests: a user asks for higher limits with a reason (one pending request at a time); an
// administrator approves them as asked or adjusted, which raises the quota at once, or denies them with a
// reason. The requester's live subscriptions hear of the decision (accounts.changed).
import type { Notifier } from "../notifications/notifier.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { ConflictError, InvalidRequestError, NotFoundError } from "../errors.ts";
import type { AccountService } from "./accounts.ts";
import type { AuditService } from "./audit.ts";
import type { Page } from "./pages.ts";
import { checkLimits, limitsForLog, quotaData, type QuotaLimits } from "./quota-limits.ts";
import { uniqueViolation } from "./validation.ts";

export interface QuotaRequestInput {
  limits: QuotaLimits;
  reason: string;
}

export interface QuotaDecisionInput {
  decision: "approve" | "deny";
  /** Approve with these instead of the requested limits (any subset; the rest as requested). */
  limits?: QuotaLimits | null;
  /** Why it was denied (required to deny), shown to the requester. */
  reason?: string | null;
}

export interface Actor {
  id: string;
  name: string;
  ip?: string | null;
}

export type QuotaRequestStatus = "PENDING" | "APPROVED" | "DENIED";

const REASON_MAX = 1000;

function reasonProblem(v: unknown): string | null {
  if (typeof v !== "string" || !v.trim()) return "Say why you need it.";
  return v.length > REASON_MAX ? `Keep it under ${REASON_MAX} characters.` : null;
}

export function createQuotaRequestService(deps: { db: Db; accounts: AccountService; audit: AuditService; notifications: Pick<Notifier, "quotaDecided">; defaultQuota: Config["defaultQuota"] }) {
  const { db, accounts, audit, notifications, defaultQuota } = deps;

  return {
    /** Files a request; 409 while another is pending; at least one limit must be above the current one. */
    async create(userId: string, input: QuotaRequestInput) {
      const problem = reasonProblem(input.reason);
      const limits = checkLimits(input.limits);
      if (problem) throw new InvalidRequestError(`Check reason: ${problem}`, { reason: problem });
      const quota = await accounts.quotaOf(userId);
      const raises = Object.entries(limits).some(([name, value]) => value > BigInt(quota[name as keyof typeof limits]));
      if (!raises) {
        throw new InvalidRequestError("Ask for at least one limit above your current one.", { limits: "Every limit asked for is at or below your current quota." });
      }
      // One at a time: pendingFor is unique, so two requests sent together cannot both be pending.
      try {
        const request = await db.quotaRequest.create({ data: { userId, pendingFor: userId, reason: input.reason.trim(), ...quotaData(limits) } });
        await accounts.changed(userId);
        return request;
      } catch (error) {
        if (uniqueViolation(error)) throw new ConflictError("You already have a limit request waiting for a decision. Wait for it before asking again.");
        throw error;
      }
    },

    /** The user's own requests, newest first (a page). */
    mine: (userId: string, page: Page) =>
      db.quotaRequest.findMany({
        where: { userId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
      }),

    /** Every user's requests for administrators, oldest pending first when filtered by PENDING, else newest first. */
    list: (status: QuotaRequestStatus | null | undefined, page: Page) =>
      db.quotaRequest.findMany({
        where: status ? { status } : {},
        orderBy: status === "PENDING" ? [{ createdAt: "asc" }, { id: "asc" }] : [{ createdAt: "desc" }, { id: "desc" }],
        take: page.first,
        ...(page.after ? { cursor: { id: page.after }, skip: 1 } : {}),
      }),

    /** Approves (raising the quota now) or denies a pending request. */
    async decide(actor: Actor, id: string, input: QuotaDecisionInput) {
      const request = await db.quotaRequest.findUnique({ where: { id } });
      if (!request) throw new NotFoundError("There is no limit request with this id.");
      if (request.status !== "PENDING") throw new ConflictError(`This request was already ${request.status.toLowerCase()}.`);
      const decidedAt = new Date();
      let details: Record<string, unknown>;
      if (input.decision === "approve") {
        const asked = { ...request } as QuotaLimits;
        const granted = quotaData(checkLimits({ ...asked, ...definedOnly(input.limits) }));
        await db.$transaction(async (tx) => {
          const { count } = await tx.quotaRequest.updateMany({
            where: { id, status: "PENDING" },
            data: { status: "APPROVED", decidedAt, decidedById: actor.id, pendingFor: null, ...granted },
          });
          if (!count) throw new ConflictError("Another administrator decided this request meanwhile.");
          await tx.quota.upsert({ where: { userId: request.userId }, update: granted, create: { ...defaultQuota, ...granted, userId: request.userId } });
        });
        details = { granted: limitsForLog(granted), requested: limitsForLog(quotaData(checkLimits(asked))) };
      } else if (input.decision === "deny") {
        const problem = reasonProblem(input.reason);
        if (problem) throw new InvalidRequestError("Say why the request is denied: the user sees it.", { reason: "Say why the request is denied." });
        const { count } = await db.quotaRequest.updateMany({
          where: { id, status: "PENDING" },
          data: { status: "DENIED", decidedAt, decidedById: actor.id, pendingFor: null, decisionReason: input.reason!.trim() },
        });
        if (!count) throw new ConflictError("Another administrator decided this request meanwhile.");
        details = { reason: input.reason!.trim() };
      } else {
        throw new InvalidRequestError('Decide with "approve" or "deny".', { decision: 'Use "approve" or "deny".' });
      }
      await audit.record({ actor, action: `admin.quota_request.${input.decision}`, target: { type: "user", id: request.userId }, details: { request: id, ...details }, ip: actor.ip });
      // Awaited: by the time the answer leaves, every instance has been told (its read cache cleared).
      await accounts.changed(request.userId);
      const decided = await db.quotaRequest.findUniqueOrThrow({ where: { id } });
      notifications.quotaDecided(request.userId, { id, status: decided.status, decidedAt: decided.decidedAt, reason: decided.decisionReason, granted: details.granted ?? null });
      return decided;
    },
  };
}

function definedOnly(limits: QuotaLimits | null | undefined): QuotaLimits {
  return Object.fromEntries(Object.entries(limits ?? {}).filter(([, v]) => v !== null && v !== undefined));
}

export type QuotaRequestService = ReturnType<typeof createQuotaRequestService>;
