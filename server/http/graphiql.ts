// GraphiQL at GET /graphql (Accept: text/html), served by the platform itself: the page loads its script,
// styles and editor workers from /_graphiql/<version>/ on this server (from @graphql-yoga/render-graphiql),
// never from a CDN, so an offline install works. No inline script or style element either, so the page
// runs under a strict Content-Security-Policy (its options travel in a JSON data block, which is not run).
// The files are immutable per version: cached for a year, sent gzip- or brotli-compressed when accepted.
import { createRequire } from "node:module";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { FastifyInstance } from "fastify";
import type { GraphiQLOptions } from "graphql-yoga";
import { NotFoundError } from "../errors.ts";
import { IMMUTABLE_CACHE } from "./web.ts";

const VERSION: string = createRequire(import.meta.url)("@graphql-yoga/render-graphiql/package.json").version;
export const GRAPHIQL_ASSETS = `/_graphiql/${VERSION}`;

/** The page's policy: everything from this origin; GraphiQL's editor sets styles from script, and its fonts are data URLs. */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

type Bundle = typeof import("@graphql-yoga/render-graphiql/graphiql");

// Sets up Monaco's workers from this server, then renders GraphiQL with the options the page carries.
const INIT = `(function () {
  var base = ${JSON.stringify(GRAPHIQL_ASSETS)};
  var workers = { editorWorkerService: "editor.worker.js", json: "json.worker.js", graphql: "graphql.worker.js" };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) { return base + "/" + (workers[label] || workers.editorWorkerService); }
  };
  var options = JSON.parse(document.getElementById("graphiql-options").textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById("root"), options);
})();
`;

const FILES: Record<string, { type: string; content: (bundle: Bundle) => string }> = {
  "graphiql.js": { type: "text/javascript; charset=utf-8", content: (bundle) => bundle.js },
  "graphiql.css": { type: "text/css; charset=utf-8", content: (bundle) => bundle.css },
  "init.js": { type: "text/javascript; charset=utf-8", content: () => INIT },
  "editor.worker.js": { type: "text/javascript; charset=utf-8", content: (bundle) => bundle.editorWorkerService },
  "json.worker.js": { type: "text/javascript; charset=utf-8", content: (bundle) => bundle.jsonWorker },
  "graphql.worker.js": { type: "text/javascript; charset=utf-8", content: (bundle) => bundle.graphqlWorker },
};

interface Encoded {
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);
/** Compressed once, on first use: the bundle is several megabytes and most servers never show GraphiQL. */
const encoded = new Map<string, Promise<Encoded>>();

function encode(name: string): Promise<Encoded> {
  let entry = encoded.get(name);
  if (!entry) {
    entry = (async () => {
      const bundle: Bundle = await import("@graphql-yoga/render-graphiql/graphiql");
      const identity = Buffer.from(FILES[name].content(bundle));
      const [gz, br] = await Promise.all([
        gzip(identity, { level: 9 }),
        brotli(identity, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
      ]);
      return { identity, gzip: gz, br };
    })();
    encoded.set(name, entry);
  }
  return entry;
}

function preferredEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    if (coding) accepted.set(coding, q === undefined ? 1 : Number(q));
  }
  const ok = (coding: string) => (accepted.get(coding) ?? accepted.get("*") ?? 0) > 0;
  return ok("br") ? "br" : ok("gzip") ? "gzip" : null;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** yoga's renderGraphiQL: the page that loads GraphiQL from this server. */
export function renderGraphiQLPage(options: GraphiQLOptions): string {
  const title = options.title ?? "Slipway GraphiQL";
  // In a JSON data block, "<" is escaped so nothing in the options can close the element.
  const json = JSON.stringify(options).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${GRAPHIQL_ASSETS}/graphiql.css">
</head>
<body>
<noscript>GraphiQL needs JavaScript. The API answers at this address all the same: POST a GraphQL query as JSON.</noscript>
<div id="root" style="height: 100vh"></div>
<script id="graphiql-options" type="application/json">${json}</script>
<script src="${GRAPHIQL_ASSETS}/graphiql.js"></script>
<script src="${GRAPHIQL_ASSETS}/init.js"></script>
</body>
</html>
`;
}

export function graphiqlAssetRoutes(app: FastifyInstance) {
  app.get<{ Params: { version: string; file: string } }>("/_graphiql/:version/:file", async (request, reply) => {
    const { version, file } = request.params;
    if (version !== VERSION || !Object.hasOwn(FILES, file)) {
      throw new NotFoundError(`No GraphiQL file ${file} in version ${version}; this server has ${GRAPHIQL_ASSETS}/.`);
    }
    const bodies = await encode(file);
    const encoding = preferredEncoding(request.headers["accept-encoding"]);
    const body = encoding ? bodies[encoding] : bodies.identity;
    reply.type(FILES[file].type).header("Cache-Control", IMMUTABLE_CACHE).header("Vary", "Accept-Encoding");
    if (encoding) reply.header("Content-Encoding", encoding);
    return reply.header("Content-Length", body.length).send(body);
  });
}
