// The per-caller rate limit (requestsPerMinute), counted the same way for HTTP requests and for
// GraphQL over WebSocket (each connection and each subscribe).
import type { Viewer } from "../auth/viewer.ts";
import { RateLimitedError } from "../errors.ts";
import type { Platform } from "../platform/index.ts";

const WINDOW_MS = 60_000;

export interface RateLimitCount {
  limit: number;
  remaining: number;
  resetSeconds: number;
  /** Set when this request is past the limit. */
  refusal: RateLimitedError | null;
}

/** Counts one request against the signed-in user's quota, or against the client address when anonymous. */
export async function countRequest(platform: Platform, caller: { viewer: Viewer | null; ip?: string }): Promise<RateLimitCount> {
  const limit = caller.viewer?.requestsPerMinute ?? platform.config.defaultQuota.requestsPerMinute;
  const counter = await platform.counters.increment(caller.viewer ? `user:${caller.viewer.user.id}` : `ip:${caller.ip}`, WINDOW_MS);
  const resetSeconds = Math.max(0, Math.ceil((counter.resetAt - Date.now()) / 1000));
  return {
    limit,
    remaining: Math.max(0, limit - counter.count),
    resetSeconds,
    refusal: counter.count > limit ? new RateLimitedError(Math.max(1, resetSeconds)) : null,
  };
}
