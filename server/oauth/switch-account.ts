// POST /oauth/switch-account: "Not you?" on the consent and device pages. Signs the session out (the form
// carries its own anti-CSRF value, so no other site can sign people out) and sends the browser to sign in,
// coming back to the page it left (`next`, a local path only: session.ts).
import type { FastifyInstance } from "fastify";
import { ForbiddenError } from "../errors.ts";
import { sessionCookieFor } from "../http/context.ts";
import { csrfValid } from "./csrf.ts";
import { sendErrorPage } from "./pages/error.ts";
import { param } from "./params.ts";
import type { OAuthContext } from "./routes.ts";
import { pageSession, redirectToLogin } from "./session.ts";

export function registerSwitchAccount(app: FastifyInstance, ctx: OAuthContext) {
  app.post("/oauth/switch-account", async (request, reply) => {
    const next = param(request.body, "next") ?? "/";
    const session = pageSession(request);
    if (session) {
      if (!csrfValid(session.sessionToken, "switch", param(request.body, "switch_token"))) {
        return sendErrorPage(reply, new ForbiddenError("This form expired or was not sent from a Slipway page. Open the page again."));
      }
      await ctx.platform.services.sessions.signOut({ ...session.user, ip: request.ip }, session.sessionId);
      sessionCookieFor(request, reply, ctx.platform.config).clear();
    }
    return redirectToLogin(reply, next, 303);
  });
}
