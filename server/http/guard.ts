// Runs before every /api, /graphql and /oauth request: who is calling, the rate limit, and the CSRF rule.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { SESSION_COOKIE, type Authentication } from "../auth/viewer.ts";
import { CsrfError, InvalidRequestError, RateLimitedError } from "../errors.ts";
import type { Platform } from "../platform/index.ts";

declare module "fastify" {
  interface FastifyRequest {
    auth?: Authentication;
  }
}

const GUARDED = /^\/(api|graphql|oauth)(\/|$|\?)/;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const WINDOW_MS = 60_000;

export function isGuarded(url: string): boolean {
  return GUARDED.test(url);
}

export function registerGuard(app: FastifyInstance, platform: Platform) {
  const { config, counters } = platform;
  const publicOrigin = new URL(config.publicUrl).origin;
  const protocol = new URL(config.publicUrl).protocol;

  function refuseCrossSite(request: FastifyRequest) {
    if (SAFE_METHODS.has(request.method) || !request.cookies[SESSION_COOKIE]) return;
    const origin = request.headers.origin;
    if (origin === undefined) return; // not a browser: no ambient-credential risk
    if (origin === publicOrigin || origin === `${protocol}//${request.headers.host}`) return;
    throw new CsrfError();
  }

  app.addHook("onRequest", async (request, reply) => {
    if (!isGuarded(request.url)) return;
    request.auth = await platform.authenticate({ sessionToken: request.cookies[SESSION_COOKIE], authorization: request.headers.authorization });
    const viewer = request.auth.viewer;
    const limit = viewer?.requestsPerMinute ?? config.defaultQuota.requestsPerMinute;
    const counter = await counters.increment(viewer ? `user:${viewer.user.id}` : `ip:${request.ip}`, WINDOW_MS);
    const resetSeconds = Math.max(0, Math.ceil((counter.resetAt - Date.now()) / 1000));
    reply.header("RateLimit-Limit", limit);
    reply.header("RateLimit-Remaining", Math.max(0, limit - counter.count));
    reply.header("RateLimit-Reset", resetSeconds);
    if (counter.count > limit) throw new RateLimitedError(Math.max(1, resetSeconds));
    refuseCrossSite(request);
  });

  // Databases refuse NUL in text (PostgreSQL errors out): turn it into a clear 400 before anything runs.
  app.addHook("preValidation", async (request) => {
    if (isGuarded(request.url) && (containsNul(request.body) || containsNul(request.query))) {
      throw new InvalidRequestError("Text must not contain NUL (\\u0000) characters.");
    }
  });
}

function containsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\0");
  if (value && typeof value === "object") return Object.values(value).some(containsNul);
  return false;
}
