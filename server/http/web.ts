// Serves the built dashboard (web/build) with an SPA fallback for its client-side routes.
// Files under /_app/immutable/ have their content's hash in their name: cached for a year, never revalidated.
// Everything else is revalidated on every use, so a new build shows at once; the page itself (index.html, also
// the answer at every client route) is never stored: Back after signing out must not bring a signed-in page
// out of the browser's cache or its back/forward cache.
// A missing file under /_app/ is a 404, never the page: a dashboard left open across an upgrade asks for the
// old build's chunks, and the page in their place fails as a script; SvelteKit's version check (web/svelte.config.js)
// then reloads it on its next navigation.
// The build writes gzip and brotli copies of every text file (web/build-tools/precompress.mjs): the one the
// browser accepts is sent as it is, with its Content-Encoding, Content-Length and `Vary: Accept-Encoding`.
import fs from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { NotFoundError } from "../errors.ts";
import { projectRoot } from "../platform/paths.ts";
import { isGuarded } from "./guard.ts";
import { routePath } from "./route-path.ts";

export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";
export const REVALIDATE = "no-cache";
export const NEVER_STORE = "no-store";
const BUILD_ASSETS = "/_app/";

export async function registerDashboard(app: FastifyInstance) {
  const root = path.join(projectRoot, "web", "build");
  const immutable = path.join(root, "_app", "immutable") + path.sep;
  const hasBuild = fs.existsSync(path.join(root, "index.html"));
  if (hasBuild) {
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: ["index.html"],
      preCompressed: true,
      cacheControl: false,
      setHeaders(reply, file) {
        reply.header("Cache-Control", file.startsWith(immutable) ? IMMUTABLE_CACHE : /\.html(\.br|\.gz)?$/.test(file) ? NEVER_STORE : REVALIDATE);
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const requested = routePath(request);
    if (requested.startsWith(BUILD_ASSETS)) {
      return reply.code(404).type("text/plain; charset=utf-8").header("Cache-Control", NEVER_STORE).send("Not found\n");
    }
    if (isGuarded(request) || request.method !== "GET" || !hasBuild) {
      throw new NotFoundError(`No route ${request.method} ${requested}. See /api/openapi.json for the API.`);
    }
    return reply.type("text/html; charset=utf-8").sendFile("index.html");
  });
}
