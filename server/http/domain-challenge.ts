// GET /.well-known/slipway-challenge/:token on the platform's own hosts: the token as plain text while a custom
// domain is pending with it, else 404. Custom domains answer it in the router (hosting/router/challenge.ts);
// this covers a proxy in front of Slipway that rewrites Host. No GraphQL operation: there is nothing to ask.
import type { FastifyInstance } from "fastify";
import { NotFoundError } from "../errors.ts";
import { CHALLENGE_PREFIX, challengeToken } from "../hosting/router/challenge.ts";
import type { Platform } from "../platform/index.ts";

export async function domainChallengeRoute(app: FastifyInstance, { platform }: { platform: Platform }) {
  app.get(`${CHALLENGE_PREFIX}:token`, async (request, reply) => {
    const token = challengeToken(request.method, request.url);
    if (token === null || !platform.services.domains.isPendingToken(token)) throw new NotFoundError("No domain is pending with this token.");
    return reply.header("cache-control", "no-store").type("text/plain; charset=utf-8").send(token);
  });
}
