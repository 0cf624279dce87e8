// GET /oauth/device shows the code entry form (prefilled from ?user_code=); POST /oauth/device looks the
// code up and shows the consent form, then records the decision (same form contract as /oauth/authorize,
// with a warning against codes sent by someone else). Every code typed counts against the user and the
// address before it is looked up (services/oauth-device-codes.ts); scopes are checked against the
// approving user.
import type { FastifyInstance } from "fastify";
import { AccountSuspendedError, ForbiddenError, InvalidRequestError, toAppError } from "../errors.ts";
import { csrfToken, csrfValid } from "./csrf.ts";
import { consentPage } from "./pages/consent.ts";
import { codeEntryPage, deviceOutcomePage } from "./pages/device.ts";
import { sendErrorPage } from "./pages/error.ts";
import { sendPage } from "./pages/html.ts";
import { param } from "./params.ts";
import type { OAuthContext } from "./routes.ts";
import { resolveScope } from "./scope.ts";
import { pageSession, redirectToLogin, signedIn } from "./session.ts";

const WARNING =
  "Only continue if you just started signing in on your own device. Never enter or approve a code that someone else sent you: they would get access to your account.";
const WRONG_CODE = "That code is not valid or has expired. Check the code shown on your device and try again.";
/** Where the sign-in detour comes back to: this page, with the code typed so far (bounded, params.ts) and nothing else. */
const devicePage = (userCode: string | undefined) => (userCode ? `/oauth/device?user_code=${encodeURIComponent(userCode)}` : "/oauth/device");

export function registerDevicePages(app: FastifyInstance, ctx: OAuthContext) {
  const devices = ctx.platform.services.oauthDeviceCodes;
  const grants = ctx.platform.services.oauthGrants;

  app.get("/oauth/device", async (request, reply) => {
    const userCode = param(request.query, "user_code");
    const session = pageSession(request);
    if (!session) return redirectToLogin(reply, devicePage(userCode));
    if (session.user.status === "SUSPENDED") return sendErrorPage(reply, new AccountSuspendedError());
    return sendPage(reply, 200, codeEntryPage({ csrfToken: csrfToken(session.sessionToken, "device"), userCode, ...signedIn(session, devicePage(userCode)) }));
  });

  app.post("/oauth/device", async (request, reply) => {
    const body = request.body;
    const typed = param(body, "user_code") ?? "";
    const session = pageSession(request);
    if (!session) return redirectToLogin(reply, devicePage(typed));
    if (session.user.status === "SUSPENDED") return sendErrorPage(reply, new AccountSuspendedError());
    if (!csrfValid(session.sessionToken, "device", param(body, "csrf_token"))) {
      return sendErrorPage(reply, new ForbiddenError("This form expired or was not sent from Slipway's device page. Open the page again and enter the code."));
    }
    const csrf = csrfToken(session.sessionToken, "device");
    const account = signedIn(session, devicePage(typed));
    await devices.countEntryAttempt(session.user.id, request.ip);
    const pending = await devices.findPending(typed);
    if (!pending) {
      return sendPage(reply, 400, codeEntryPage({ csrfToken: csrf, userCode: typed, error: WRONG_CODE, ...account }));
    }

    let scopes;
    try {
      scopes = resolveScope(pending.scope, session.user);
    } catch (error) {
      await devices.decide(pending.id, session.user.id, false); // the device hears access_denied at once
      return sendErrorPage(reply, toAppError(error), "This device request cannot be approved");
    }

    const decision = param(body, "decision");
    if (decision === undefined) {
      const client = await ctx.platform.services.oauthClients.forConsent(pending.client.clientId);
      if (!client) return sendPage(reply, 400, codeEntryPage({ csrfToken: csrf, userCode: typed, error: WRONG_CODE, ...account }));
      return sendPage(
        reply,
        200,
        consentPage({ action: "/oauth/device", client, scopes, hidden: { user_code: pending.userCode, csrf_token: csrf }, warning: WARNING, ...account }),
      );
    }
    if (decision !== "approve" && decision !== "deny") return sendErrorPage(reply, new InvalidRequestError('Choose "approve" or "deny".'));
    const approved = decision === "approve";
    // Consent first: the device's next poll issues tokens, which are only kept while consent exists.
    if (approved) await grants.rememberConsent({ ...session.user, ip: request.ip }, pending.client, scopes);
    if (!(await devices.decide(pending.id, session.user.id, approved))) {
      return sendPage(reply, 400, codeEntryPage({ csrfToken: csrf, error: WRONG_CODE, ...signedIn(session, devicePage(undefined)) }));
    }
    return sendPage(reply, 200, deviceOutcomePage(approved, pending.client.name));
  });
}
