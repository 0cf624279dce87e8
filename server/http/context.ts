// Builds the GraphQL context from a Fastify request: used by /graphql and by the REST adapter.
import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_COOKIE, type Credentials } from "../auth/viewer.ts";
import type { Context, SessionCookie } from "../graphql/context.ts";
import type { Platform } from "../platform/index.ts";

export function sessionCookieFor(reply: FastifyReply, secure: boolean): SessionCookie {
  const base = { path: "/", httpOnly: true, sameSite: "lax", secure } as const;
  return {
    set: (token, expiresAt) => void reply.setCookie(SESSION_COOKIE, token, { ...base, expires: expiresAt }),
    clear: () => void reply.clearCookie(SESSION_COOKIE, base),
  };
}

/** The session cookie and the Authorization header, as the guard and subscriptions read them. */
export function credentialsOf(request: FastifyRequest): Credentials {
  return { sessionToken: request.cookies[SESSION_COOKIE], authorization: request.headers.authorization };
}

export function contextFor(platform: Platform, request: FastifyRequest, reply: FastifyReply): Context {
  return {
    config: platform.config,
    db: platform.db,
    services: platform.services,
    viewer: request.auth?.viewer ?? null,
    authError: request.auth?.error,
    client: { ip: request.ip, userAgent: request.headers["user-agent"] },
    sessionCookie: sessionCookieFor(reply, platform.config.secureCookies),
    reauthenticate: () => platform.authenticate(credentialsOf(request)),
  };
}
