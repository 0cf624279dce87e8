// Cross-origin access to /api and /graphql from browsers: none unless CORS_ORIGINS lists the origin, and
// never with credentials (no Access-Control-Allow-Credentials): a listed origin calls with a Bearer token.
// The session cookie would not work for it anyway: the guard never honours it for another origin.
// /oauth/* sends no CORS headers.
import type { FastifyInstance } from "fastify";
import { routePath } from "./route-path.ts";

const API = /^\/(api|graphql)(\/|$)/;
const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE";
const ALLOW_HEADERS = "Authorization, Content-Type, Accept";
const EXPOSE_HEADERS = "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, WWW-Authenticate";
const PREFLIGHT_MAX_AGE_SECONDS = "600";

/** Answers preflights itself, before the guard: a preflight carries no credentials and runs nothing. */
export function registerCors(app: FastifyInstance, origins: ReadonlySet<string>) {
  if (origins.size === 0) return;
  app.addHook("onRequest", (request, reply, done) => {
    if (!API.test(routePath(request))) return done();
    reply.header("Vary", "Origin");
    const origin = request.headers.origin;
    if (origin === undefined || !origins.has(origin)) return done();
    reply.header("Access-Control-Allow-Origin", origin);
    if (request.method !== "OPTIONS" || request.headers["access-control-request-method"] === undefined) {
      reply.header("Access-Control-Expose-Headers", EXPOSE_HEADERS);
      return done();
    }
    reply
      .header("Access-Control-Allow-Methods", ALLOW_METHODS)
      .header("Access-Control-Allow-Headers", ALLOW_HEADERS)
      .header("Access-Control-Max-Age", PREFLIGHT_MAX_AGE_SECONDS)
      .status(204)
      .send();
  });
}
