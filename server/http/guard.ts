// Runs before every /api, /graphql and /oauth request: who is calling, the rate limit, and the CSRF rule;
// then refuses bodies a database or a recursive parser cannot take (NUL characters, deep nesting).
// "Every request" means every request the router sends to those routes, however its URL is spelled.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { SESSION_COOKIE, type Authentication } from "../auth/viewer.ts";
import { CsrfError, InvalidRequestError } from "../errors.ts";
import type { Platform } from "../platform/index.ts";
import { credentialsOf } from "./context.ts";
import { countRequest } from "./rate-limit.ts";
import { routePath } from "./route-path.ts";

declare module "fastify" {
  interface FastifyRequest {
    auth?: Authentication;
  }
}

const GUARDED = /^\/(api|graphql|oauth)(\/|$)/;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Deeper JSON than any route takes; past it, later recursive walks (GraphQL variables) could overflow. */
const MAX_BODY_DEPTH = 64;

export function isGuarded(request: FastifyRequest): boolean {
  return GUARDED.test(routePath(request));
}

/** Whether a browser's Origin is Slipway's own: the configured public URL, or the host the request was sent to. */
export function isOwnOrigin(publicUrl: URL, origin: string, host: string | undefined): boolean {
  return origin === publicUrl.origin || origin === `${publicUrl.protocol}//${host}`;
}

export function registerGuard(app: FastifyInstance, platform: Platform) {
  const publicUrl = new URL(platform.config.publicUrl);

  function refuseCrossSite(request: FastifyRequest) {
    if (SAFE_METHODS.has(request.method) || !request.cookies[SESSION_COOKIE]) return;
    const origin = request.headers.origin;
    if (origin === undefined) return; // not a browser: no ambient-credential risk
    if (!isOwnOrigin(publicUrl, origin, request.headers.host)) throw new CsrfError();
  }

  app.addHook("onRequest", async (request, reply) => {
    if (!isGuarded(request)) return;
    request.auth = await platform.authenticate(credentialsOf(request));
    const count = await countRequest(platform, { viewer: request.auth.viewer, ip: request.ip });
    reply.header("RateLimit-Limit", count.limit);
    reply.header("RateLimit-Remaining", count.remaining);
    reply.header("RateLimit-Reset", count.resetSeconds);
    if (count.refusal) throw count.refusal;
    refuseCrossSite(request);
  });

  app.addHook("preValidation", (request, _reply, done) => {
    done(isGuarded(request) ? inputProblem(request) : undefined);
  });
}

function inputProblem(request: FastifyRequest): InvalidRequestError | undefined {
  for (const input of [request.body, request.query]) {
    const problem = inspect(input);
    // Databases refuse NUL in text (PostgreSQL errors out): a clear 400 before anything runs.
    if (problem === "nul") return new InvalidRequestError("Text must not contain NUL (\\u0000) characters.");
    if (problem === "too_deep") return new InvalidRequestError(`The body is nested too deeply: at most ${MAX_BODY_DEPTH} levels of objects and arrays.`);
  }
  return undefined;
}

/** Walks parsed input without recursion, so no nesting can overflow the stack. */
function inspect(value: unknown): "nul" | "too_deep" | null {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item === "string" && item.includes("\0")) return "nul";
    if (item && typeof item === "object") {
      if (depth >= MAX_BODY_DEPTH) return "too_deep";
      for (const child of Object.values(item)) pending.push([child, depth + 1]);
    }
  }
  return null;
}
