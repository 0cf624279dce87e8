// Serves the built dashboard (web/build) with an SPA fallback for its client-side routes.
import fs from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { NotFoundError } from "../errors.ts";
import { projectRoot } from "../platform/paths.ts";
import { isGuarded } from "./guard.ts";
import { routePath } from "./route-path.ts";

export async function registerDashboard(app: FastifyInstance) {
  const root = path.join(projectRoot, "web", "build");
  const hasBuild = fs.existsSync(path.join(root, "index.html"));
  if (hasBuild) await app.register(fastifyStatic, { root, wildcard: false, index: ["index.html"] });

  app.setNotFoundHandler((request, reply) => {
    if (isGuarded(request) || request.method !== "GET" || !hasBuild) {
      throw new NotFoundError(`No route ${request.method} ${routePath(request)}. See /api/openapi.json for the API.`);
    }
    return reply.type("text/html; charset=utf-8").sendFile("index.html");
  });
}
