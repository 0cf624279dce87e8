// GET /oauth/authorize shows the consent page (or skips it when the user already granted these scopes to
// this confidential client); POST /oauth/authorize records the decision. A public client always gets the
// consent page: anything on the device can claim its client_id and loopback redirect, so a remembered
// consent would hand codes to an impostor without the user seeing a thing (RFC 8252 §8.6). The pipeline is authorization/index.ts; the
// code itself is issued by the library through the model.
import OAuth2Server from "@node-oauth/oauth2-server";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ViewerUser } from "../auth/viewer.ts";
import { AccessDeniedError, AccountSuspendedError, AppError, ForbiddenError, InvalidRequestError } from "../errors.ts";
import { checkRequest, checkTarget, requestParams, stateOf, type AuthorizationRequest, type AuthorizationTarget } from "./authorization/index.ts";
import { csrfToken, csrfValid } from "./csrf.ts";
import { fromLibraryError } from "./errors.ts";
import { authorizationModel } from "./model.ts";
import { consentPage } from "./pages/consent.ts";
import { sendErrorPage } from "./pages/error.ts";
import { sendPage } from "./pages/html.ts";
import { param } from "./params.ts";
import { clientRedirect, errorRedirect } from "./redirect.ts";
import { pageSession, redirectToLogin, signedIn } from "./session.ts";
import type { OAuthContext } from "./routes.ts";

/** The consent page's own address, to come back to after signing in (its parameters are bounded, params.ts). */
const authorizePath = (carried: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(carried)}`;

/** An error that must not be redirected: shown on a page (unknown client, unregistered redirect_uri, forged form). */
const showError = (reply: FastifyReply, error: AppError) => sendErrorPage(reply, error, "This authorization request cannot be completed");

function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  throw error;
}

export function registerAuthorizeRoutes(app: FastifyInstance, ctx: OAuthContext) {
  const { services } = ctx.platform;

  async function issueCode(request: AuthorizationRequest, user: ViewerUser): Promise<string> {
    const body: Record<string, string> = { client_id: request.client.clientId, response_type: "code", scope: request.scopes.join(" ") };
    if (request.redirectUriSent) body.redirect_uri = request.redirectUri;
    if (request.state) body.state = request.state;
    if (request.codeChallenge) Object.assign(body, { code_challenge: request.codeChallenge, code_challenge_method: request.codeChallengeMethod });
    try {
      const code = await ctx.provider.server.authorize(new OAuth2Server.Request({ method: "POST", headers: {}, query: {}, body }), new OAuth2Server.Response(), {
        model: authorizationModel(ctx.provider.model, services, request.redirectUriSent),
        authenticateHandler: { handle: () => ({ id: user.id, role: user.role, status: user.status }) },
      } as OAuth2Server.AuthorizeOptions);
      return clientRedirect(request.redirectUri, ctx.issuer, { code: code.authorizationCode, state: request.state });
    } catch (error) {
      return errorRedirect(request.redirectUri, ctx.issuer, fromLibraryError(error, { basicAttempted: false }), request.state);
    }
  }

  /**
   * Runs the pipeline; an error page, a sign-in redirect or an error redirect ends the request early. The
   * sign-in detour comes back to GET /oauth/authorize with the request's own parameters, bounded.
   */
  async function authorizationRequest(params: unknown, reply: FastifyReply, status: 302 | 303) {
    let target: AuthorizationTarget;
    try {
      target = await checkTarget(params, services.oauthClients);
    } catch (error) {
      return { done: showError(reply, asAppError(error)) };
    }
    const redirectError = (error: unknown) => ({ done: reply.redirect(errorRedirect(target.redirectUri, ctx.issuer, asAppError(error), stateOf(params)), status) });
    let carried: Record<string, string>;
    try {
      carried = requestParams(params);
    } catch (error) {
      return redirectError(error);
    }
    const session = pageSession(reply.request);
    if (!session) return { done: redirectToLogin(reply, authorizePath(carried)) };
    if (session.user.status === "SUSPENDED") return { done: showError(reply, new AccountSuspendedError()) };
    try {
      return { session, carried, request: checkRequest(params, target, session.user) };
    } catch (error) {
      return redirectError(error);
    }
  }

  app.get("/oauth/authorize", async (request, reply) => {
    const outcome = await authorizationRequest(request.query, reply, 302);
    if (!outcome.request) return outcome.done;
    const { session, carried, request: authz } = outcome;
    if (!authz.client.public && (await services.oauthGrants.hasConsent(session.user.id, authz.client.id, authz.scopes))) {
      return reply.redirect(await issueCode(authz, session.user), 302);
    }
    const client = await services.oauthClients.forConsent(authz.client.clientId);
    if (!client) return showError(reply, new InvalidRequestError("This application was deleted while you were signing in."));
    return sendPage(
      reply,
      200,
      consentPage({
        action: "/oauth/authorize",
        client,
        scopes: authz.scopes,
        redirectHost: new URL(authz.redirectUri).host,
        hidden: { ...carried, scope: authz.scopes.join(" "), csrf_token: csrfToken(session.sessionToken, "authorize") },
        formTargets: [new URL(authz.redirectUri).origin],
        ...signedIn(session, authorizePath(carried)),
      }),
    );
  });

  app.post("/oauth/authorize", async (request, reply) => {
    const body = request.body;
    const outcome = await authorizationRequest(body, reply, 303);
    if (!outcome.request) return outcome.done;
    const { session, request: authz } = outcome;
    if (!csrfValid(session.sessionToken, "authorize", param(body, "csrf_token"))) {
      return showError(reply, new ForbiddenError("This form expired or was not sent from Slipway's consent page. Go back to the application and try again."));
    }
    const decision = param(body, "decision");
    if (decision === "deny") {
      return reply.redirect(errorRedirect(authz.redirectUri, ctx.issuer, new AccessDeniedError("The user denied the request."), authz.state), 303);
    }
    if (decision !== "approve") return showError(reply, new InvalidRequestError('Choose "approve" or "deny".'));
    await services.oauthGrants.rememberConsent({ ...session.user, ip: request.ip }, authz.client, authz.scopes);
    return reply.redirect(await issueCode(authz, session.user), 303);
  });
}
