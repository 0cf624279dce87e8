// Who is at the browser on the OAuth pages. Consent needs the dashboard session (the cookie), never a
// Bearer token; a visitor without one is sent to sign in and comes back to `next`.
import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_COOKIE, type ViewerUser } from "../auth/viewer.ts";

export interface PageSession {
  user: ViewerUser;
  sessionToken: string;
}

export function pageSession(request: FastifyRequest): PageSession | null {
  const viewer = request.auth?.viewer;
  const sessionToken = request.cookies[SESSION_COOKIE];
  if (!viewer || viewer.via.kind !== "session" || !sessionToken) return null;
  return { user: viewer.user, sessionToken };
}

/** 302 to the dashboard's sign-in page, which sends the user back to `next` (a path on this server). */
export function redirectToLogin(reply: FastifyReply, next: string) {
  return reply.redirect(`/login?next=${encodeURIComponent(next)}`, 302);
}
