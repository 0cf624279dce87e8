// GET /metrics: the platform's own Prometheus text exposition (platform/metrics.ts), for operators. With
// METRICS_TOKEN set, only a request with that bearer token gets it; without it, only loopback callers (the client's
// address as the platform sees it: behind EDGE=caddy, the one Caddy forwards). Every request the platform answers is
// counted by its route pattern, method and status.
import { timingSafeEqual } from "node:crypto";
import net from "node:net";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ForbiddenError, InvalidTokenError, UnauthenticatedError } from "../errors.ts";
import type { Platform } from "../platform/index.ts";

export function registerMetrics(app: FastifyInstance, platform: Platform): void {
  const { metrics, config } = platform;
  app.addHook("onResponse", (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? "(no route)", reply.statusCode);
    done();
  });
  app.get("/metrics", async (request, reply) => {
    allowed(request, config.metricsToken);
    return reply.header("cache-control", "no-store").type(metrics.contentType).send(await metrics.render());
  });
}

function allowed(request: FastifyRequest, token: string | undefined): void {
  if (!token) {
    if (isLoopback(request.ip)) return;
    throw new ForbiddenError("GET /metrics answers loopback callers only: set METRICS_TOKEN to scrape it from elsewhere, with that bearer token.");
  }
  const sent = /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1];
  if (!sent) throw new UnauthenticatedError("Send the METRICS_TOKEN as a bearer token (Authorization: Bearer <token>).");
  const [a, b] = [Buffer.from(sent), Buffer.from(token)];
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new InvalidTokenError("This is not the platform's METRICS_TOKEN.");
}

function isLoopback(ip: string): boolean {
  const address = ip.startsWith("::ffff:") ? ip.slice(7) : ip;
  return address === "::1" || (net.isIPv4(address) && address.startsWith("127."));
}
