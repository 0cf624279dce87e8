// Defaults for every response; a route that needs something stricter (the OAuth pages' CSP) sets its own.
import type { FastifyInstance } from "fastify";

export const SECURITY_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/** Set as the request arrives (a synchronous hook: no promise per request); whatever the route sets later wins. */
export function registerSecurityHeaders(app: FastifyInstance) {
  app.addHook("onRequest", (_request, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    done();
  });
}
