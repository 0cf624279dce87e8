// Defaults for every response; a route that needs something stricter (the OAuth pages' CSP) sets its own.
import type { FastifyInstance } from "fastify";

const DEFAULTS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
};

export function registerSecurityHeaders(app: FastifyInstance) {
  app.addHook("onSend", async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(DEFAULTS)) if (!reply.hasHeader(name)) reply.header(name, value);
    return payload;
  });
}
