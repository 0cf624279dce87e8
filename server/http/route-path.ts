// The path a request was routed by. Fastify's router decodes the URL (`/%61pi/me` reaches `/api/me`), so
// decisions about a request (guard, error shape, SPA fallback) use the matched route, never the raw URL.
import type { FastifyRequest } from "fastify";

/** The matched route's pattern (`/api/apps/:id`); for unmatched requests, the decoded path. */
export function routePath(request: FastifyRequest): string {
  return request.routeOptions.url ?? decodedPath(request.url);
}

function decodedPath(url: string): string {
  const path = url.split(/[?#]/, 1)[0];
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
