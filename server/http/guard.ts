// Runs before every /api, /graphql and /oauth request: who is calling, the rate limit, and the CSRF rule;
// then refuses bodies a database or a recursive parser cannot take (NUL characters, deep nesting).
// "Every request" means every request the router sends to those routes, however its URL is spelled.
//
// The CSRF rule (origin.ts says what "cross-site" is): a request that the session cookie would authenticate and
// that a browser sent from another origin is refused when it writes (403) and is served as an anonymous caller's
// when it reads, so no other origin (a hosted app on a sibling subdomain sends the Lax cookie) acts or reads as
// the signed-in user. Bearer tokens are not ambient credentials and are unaffected.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Authentication, Credentials } from "../auth/viewer.ts";
import { CsrfError, InvalidRequestError, type AppError } from "../errors.ts";
import type { Platform } from "../platform/index.ts";
import { credentialsOf } from "./context.ts";
import { isCrossSiteCookie } from "./origin.ts";
import { countRequest, countRequestNow, type RateLimitCount } from "./rate-limit.ts";
import { routePath } from "./route-path.ts";

declare module "fastify" {
  interface FastifyRequest {
    auth?: Authentication;
    /** What the guard authenticated with (the session cookie left out of a cross-site read); reused to re-check. */
    credentials?: Credentials;
  }
}

const GUARDED = /^\/(api|graphql|oauth)(\/|$)/;
/** The OAuth pages keep the cookie on cross-site reads: /oauth/authorize is a cross-site navigation by design. */
const OAUTH = /^\/oauth(\/|$)/;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Deeper JSON than any route takes; past it, later recursive walks (GraphQL variables) could overflow. */
const MAX_BODY_DEPTH = 64;

export function isGuarded(request: FastifyRequest): boolean {
  return GUARDED.test(routePath(request));
}

export function registerGuard(app: FastifyInstance, platform: Platform) {
  const publicUrl = new URL(platform.config.publicUrl);

  /** Records who calls and their count on the request and reply; the error that refuses the request, if any. */
  function admit(request: FastifyRequest, reply: FastifyReply, auth: Authentication, count: RateLimitCount, crossSiteWrite: boolean): AppError | undefined {
    request.auth = auth;
    const via = auth.viewer?.via;
    if (via?.kind === "session") platform.services.sessions.touch(via.sessionId); // "last used" in the sessions list
    reply.header("RateLimit-Limit", count.limit);
    reply.header("RateLimit-Remaining", count.remaining);
    reply.header("RateLimit-Reset", count.resetSeconds);
    if (count.refusal) return count.refusal;
    if (crossSiteWrite) return new CsrfError();
    return undefined;
  }

  // A callback hook, not an async one: when the read cache holds the caller and the counters live in this
  // process (the common case), the request is admitted without a promise; otherwise it waits for both.
  app.addHook("onRequest", (request, reply, done) => {
    if (!isGuarded(request)) return done();
    const credentials = credentialsOf(request);
    const crossSite = isCrossSiteCookie(credentials, request.headers, publicUrl);
    const writes = !SAFE_METHODS.has(request.method);
    if (crossSite && !writes && !OAUTH.test(routePath(request))) credentials.sessionToken = undefined;
    request.credentials = credentials;
    const cached = platform.authenticate.cached(credentials);
    const countNow = cached && countRequestNow(platform, { viewer: cached.viewer, ip: request.ip });
    if (cached && countNow) return done(admit(request, reply, cached, countNow, crossSite && writes));
    void (async () => {
      const auth = cached ?? (await platform.authenticate(credentials));
      const count = await countRequest(platform, { viewer: auth.viewer, ip: request.ip });
      return admit(request, reply, auth, count, crossSite && writes);
    })().then(done, done);
  });

  app.addHook("preValidation", (request, _reply, done) => {
    done(isGuarded(request) ? inputProblem(request) : undefined);
  });
}

function inputProblem(request: FastifyRequest): InvalidRequestError | undefined {
  for (const input of [request.body, request.query]) {
    const problem = inspect(input);
    // Databases refuse NUL in text (PostgreSQL errors out): a clear 400 naming the field before anything runs.
    if (problem?.kind === "nul") {
      const fields = problem.field ? { [problem.field]: "Must not contain NUL (\\u0000) characters." } : {};
      return new InvalidRequestError(`${problem.field ? `Check ${problem.field}: text` : "Text"} must not contain NUL (\\u0000) characters.`, fields);
    }
    if (problem?.kind === "too_deep") return new InvalidRequestError(`The body is nested too deeply: at most ${MAX_BODY_DEPTH} levels of objects and arrays.`);
  }
  return undefined;
}

/** Walks parsed input without recursion, so no nesting can overflow the stack; `field` is the dotted path of a bad string. */
function inspect(value: unknown): { kind: "nul" | "too_deep"; field?: string } | null {
  const pending: [unknown, number, string][] = [[value, 0, ""]];
  while (pending.length > 0) {
    const [item, depth, field] = pending.pop()!;
    if (Buffer.isBuffer(item)) continue; // a raw body (the GitHub webhook's): bytes, not parsed input
    if (typeof item === "string" && item.includes("\0")) return { kind: "nul", field };
    if (item && typeof item === "object") {
      if (depth >= MAX_BODY_DEPTH) return { kind: "too_deep" };
      for (const [key, child] of Object.entries(item)) pending.push([child, depth + 1, field ? `${field}.${key}` : key]);
    }
  }
  return null;
}
