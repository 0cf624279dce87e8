// Who is at the browser on the OAuth pages. Consent needs the dashboard session (the cookie), never a
// Bearer token; a visitor without one is sent to sign in and comes back to `next`.
import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_COOKIE, type ViewerUser } from "../auth/viewer.ts";
import { csrfToken } from "./csrf.ts";

export interface PageSession {
  user: ViewerUser;
  sessionId: string;
  sessionToken: string;
}

export function pageSession(request: FastifyRequest): PageSession | null {
  const viewer = request.auth?.viewer;
  const sessionToken = request.cookies[SESSION_COOKIE];
  if (!viewer || viewer.via.kind !== "session" || !sessionToken) return null;
  return { user: viewer.user, sessionId: viewer.via.sessionId, sessionToken };
}

/** What a page needs for its "Signed in as … Not you?" line (pages/consent.ts), coming back to `next`. */
export function signedIn(session: PageSession, next: string) {
  return { user: session.user, next, switchToken: csrfToken(session.sessionToken, "switch") };
}

/** How long a `next` may be: the OAuth pages' own, built from their bounded parameters (params.ts), always fit. */
const MAX_NEXT_LENGTH = 16384;

/** A path on this server: one leading slash (not `//host` nor `/\host`, which browsers read as another host), printable ASCII, bounded. */
function isLocalPath(path: string): boolean {
  return path.length <= MAX_NEXT_LENGTH && /^\/(?![/\\])[\x21-\x7e]*$/.test(path);
}

/** 302 to the dashboard's sign-in page, which sends the user back to `next` when it is a local path; else just to sign in. */
export function redirectToLogin(reply: FastifyReply, next: string, status: 302 | 303 = 302) {
  return reply.redirect(isLocalPath(next) ? `/login?next=${encodeURIComponent(next)}` : "/login", status);
}
