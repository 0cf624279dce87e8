// The per-caller rate limit (requestsPerMinute): a sliding window, so no 60 s span ever holds more than the
// limit. Counted the same way for HTTP requests and for GraphQL over WebSocket (each connection and each
// subscribe); a costly GraphQL operation counts more than one request (see server/graphql/limits.ts).
import type { Viewer } from "../auth/viewer.ts";
import { RateLimitedError } from "../errors.ts";
import type { Platform } from "../platform/index.ts";
import type { Take, TakeRule } from "../platform/ratelimit/types.ts";

const WINDOW_MS = 60_000;

export interface RateLimitCount {
  limit: number;
  remaining: number;
  /** Seconds until the oldest request counted leaves the window (remaining grows again then). */
  resetSeconds: number;
  /** Seconds until the request would fit, when refused. */
  retryAfterSeconds: number;
  /** Set when this request is past the limit; it was not counted. */
  refusal: RateLimitedError | null;
}

export interface Caller {
  viewer: Viewer | null;
  ip?: string;
}

/**
 * Counts `requests` (default one) against the signed-in user's quota, or against the client address when
 * anonymous, all or nothing.
 */
export async function countRequest(platform: Platform, caller: Caller, requests = 1): Promise<RateLimitCount> {
  const { key, rule } = ruleFor(platform, caller, requests);
  return countOf(rule.limit, await platform.counters.take(key, rule));
}

/** `countRequest` without waiting, when the counters live in this process; undefined otherwise. */
export function countRequestNow(platform: Platform, caller: Caller): RateLimitCount | undefined {
  const { counters } = platform;
  if (!counters.takeNow) return undefined;
  const { key, rule } = ruleFor(platform, caller, 1);
  return countOf(rule.limit, counters.takeNow(key, rule));
}

function ruleFor(platform: Platform, caller: Caller, requests: number): { key: string; rule: TakeRule } {
  const limit = caller.viewer?.requestsPerMinute ?? platform.config.defaultQuota.requestsPerMinute;
  const key = caller.viewer ? `user:${caller.viewer.user.id}` : `ip:${caller.ip}`;
  return { key, rule: { limit, windowMs: WINDOW_MS, weight: requests } };
}

function countOf(limit: number, take: Take): RateLimitCount {
  const now = Date.now();
  const seconds = (at: number) => Math.max(1, Math.ceil((at - now) / 1000));
  // More than the limit never fits: try again is no answer, asking for less is.
  const retryAfter = take.retryAt === Infinity ? WINDOW_MS / 1000 : seconds(take.retryAt);
  return {
    limit,
    remaining: Math.max(0, limit - take.count),
    resetSeconds: seconds(take.resetAt),
    retryAfterSeconds: take.allowed ? 0 : retryAfter,
    refusal: take.allowed ? null : new RateLimitedError(retryAfter),
  };
}
