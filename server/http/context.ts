// Builds the GraphQL context from a Fastify request: used by /graphql and by the REST adapter.
import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_COOKIE, type Credentials } from "../auth/viewer.ts";
import type { Config } from "../config.ts";
import type { Context, SessionCookie } from "../graphql/context.ts";
import type { Platform } from "../platform/index.ts";
import { refuseCrossSiteSignIn } from "./origin.ts";

/**
 * Host-only (no Domain attribute: never sent to the apps' subdomains), HttpOnly, SameSite=Lax, Secure on https.
 * Never handed to a request a browser sent from another origin.
 */
export function sessionCookieFor(request: FastifyRequest, reply: FastifyReply, config: Config): SessionCookie {
  const base = { path: "/", httpOnly: true, sameSite: "lax", secure: config.secureCookies } as const;
  const assertSameOrigin = () => refuseCrossSiteSignIn(request.headers, new URL(config.publicUrl));
  return {
    assertSameOrigin,
    set: (token, expiresAt) => {
      assertSameOrigin();
      reply.setCookie(SESSION_COOKIE, token, { ...base, expires: expiresAt });
    },
    clear: () => void reply.clearCookie(SESSION_COOKIE, base),
  };
}

/** The session cookie and the Authorization header, as the request sent them. */
export function credentialsOf(request: FastifyRequest): Credentials {
  return { sessionToken: request.cookies[SESSION_COOKIE], authorization: request.headers.authorization };
}

export function contextFor(platform: Platform, request: FastifyRequest, reply: FastifyReply): Context {
  // The guard's credentials: a cross-site read authenticated without the cookie is re-checked without it too.
  const credentials = request.credentials ?? {};
  return {
    config: platform.config,
    db: platform.db,
    services: platform.services,
    viewer: request.auth?.viewer ?? null,
    authError: request.auth?.error,
    client: { ip: request.ip, userAgent: request.headers["user-agent"] },
    sessionCookie: sessionCookieFor(request, reply, platform.config),
    reauthenticate: () => platform.authenticate(credentials),
  };
}
