// POST /api/github/webhook: GitHub's deliveries. Like the OAuth protocol endpoints, a deliberate exception to
// "every route runs a GraphQL operation": the signature (X-Hub-Signature-256, HMAC-SHA256 keyed with
// GITHUB_WEBHOOK_SECRET) must be checked over the exact bytes GitHub sent, so this route keeps its body raw and
// checks it here, in constant time, before anything is parsed; what a delivery does is the service's
// (services/github-webhooks.ts). No secret configured, or a missing or wrong signature: 401, nothing happens.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { UnauthenticatedError } from "../errors.ts";
import type { Platform } from "../platform/index.ts";

const MiB = 1024 * 1024;

export function isValidSignature(secret: string, body: Buffer, header: unknown): boolean {
  if (typeof header !== "string" || !header.startsWith("sha256=")) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  const given = Buffer.from(header.slice("sha256=".length), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function githubWebhookRoutes(app: FastifyInstance, { platform }: { platform: Platform }) {
  // This plugin's own parsers: every body stays the raw bytes it arrived as.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 25 * MiB }, (_request, body, done) => done(null, body));

  app.post("/api/github/webhook", { bodyLimit: 25 * MiB }, async (request, reply) => {
    const secret = platform.config.githubWebhookSecret;
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (!secret || !isValidSignature(secret, body, request.headers["x-hub-signature-256"])) {
      throw new UnauthenticatedError("The X-Hub-Signature-256 signature is missing or does not match: check the webhook's secret (GITHUB_WEBHOOK_SECRET).");
    }
    const answer = await platform.services.githubWebhooks.receive({ event: request.headers["x-github-event"], id: request.headers["x-github-delivery"], body });
    return reply.status(answer.status).send(answer.body);
  });
}
