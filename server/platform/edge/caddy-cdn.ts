// CDN file bytes sent by Caddy (EDGE=caddy, local storage, EDGE_CDN_FILES=caddy), in two routes.
//
// Direct: a GET or HEAD with no validator, and no range or an open one (`bytes=a-`, what browsers ask for media), of
// a file a browser shows without running anything is sent by Caddy alone, as nginx sends static files, with no
// question to Slipway. Its content path names the file's id,
// type and SHA-256, and Caddy sends it only when the links folder holds a link named by exactly those
// (services/cdn-layout.ts), which Slipway makes at upload and removes first at deletion. The headers are the ones
// Slipway sends for such a file, built from the path: a path whose claims were altered names no link.
//
// Lookup (the X-Accel-Redirect pattern), for every other request of the content path: it goes to Slipway with a
// token only this configuration carries; Slipway looks the file up as always (a deleted file is a 404 from
// Slipway, a 304 or a 416 is answered there too) and, instead of the bytes, answers with the headers of the
// content and the file's name inside the CDN folder. Caddy then serves that file with `file_server` (sendfile on
// plain HTTP), the range Slipway settled on, and Slipway's headers. The URL never names a file on disk: only
// Slipway's answer does, and file_server keeps it inside the folder, which holds nothing but CDN objects.
type Json = Record<string, unknown>;

/** Set by Caddy on the request it proxies to Slipway: Slipway answers with a file to send only when it holds. */
export const EDGE_TOKEN_HEADER = "X-Slipway-Edge-Token";
/** In Slipway's answer: the file to send, a path inside the CDN folder. */
export const SENDFILE_HEADER = "X-Slipway-Sendfile";
/** In Slipway's answer: the one range to send (`bytes=a-b`), or empty for the whole file. */
export const SENDFILE_RANGE_HEADER = "X-Slipway-Range";

/** Slipway's headers that the content keeps (hop-by-hop ones, length, ETag and our own are not copied). */
const CONTENT_HEADERS = [
  "Content-Type",
  "Content-Disposition",
  "Cache-Control",
  "Content-Security-Policy",
  "X-Content-Type-Options",
  "Cross-Origin-Resource-Policy",
  "Cross-Origin-Opener-Policy",
  "Referrer-Policy",
];

/** Conditions are Slipway's to judge (with its ETag, the SHA-256): file_server must not judge them with its own. */
const CONDITIONS = ["If-Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"];

export interface EdgeCdnFiles {
  /** The folder of CDN objects (LocalStorage's `cdn/`). */
  root: string;
  /** The folder of links to the files Caddy sends on its own (LocalStorage's `cdn-edge/`). */
  links: string;
  /** A secret every instance shares (SHARED_DATA_DIR): a client cannot make Slipway answer with a file name. */
  token: string;
}

/** The routes of the platform host's content path, placed before the host's catch-all route to Slipway. */
/** `slipway`: the reverse_proxy handler that reaches Slipway's instances (its upstreams and their retries). */
export function cdnEdgeRoutes(platformHostname: string, slipway: Json, files: EdgeCdnFiles): Json[] {
  return [directRoute(platformHostname, files), lookupRoute(platformHostname, slipway, files)];
}

/** `/cdn/<id>/<type>/<subtype>/<sha256>/<name>`, for the types that have links (cdn-layout.ts). */
const DIRECT_PATH = "^/cdn/([A-Za-z0-9][A-Za-z0-9_-]{0,63})/(image|audio|video|text|application|font)/([a-z0-9][a-z0-9._-]{0,126})/([0-9a-f]{64})/[^/]+$";

/**
 * Not terminal: a path that names no link goes on to the lookup route. Of the ranges, only `bytes=a-`: file_server
 * answers it as Slipway does (206, or 416 past the end; a link is never of an empty file, which Go would send whole).
 */
function directRoute(platformHostname: string, files: EdgeCdnFiles): Json {
  const part = (n: number) => `{http.regexp.cdn.${n}}`;
  const absent = (names: string[]) => Object.fromEntries(names.map((name) => [name, null]));
  const request = { host: [platformHostname], method: ["GET", "HEAD"], path_regexp: { name: "cdn", pattern: DIRECT_PATH } };
  return {
    match: [
      { ...request, header: absent(["Range", ...CONDITIONS]) },
      { ...request, header: absent(CONDITIONS), header_regexp: { Range: { pattern: "^bytes=[0-9]{1,15}-$" } } },
    ],
    handle: [
      {
        handler: "subroute",
        routes: [
          {
            match: [{ file: { root: files.links, try_files: [`/${part(2)}/${part(3)}/${part(1)}.${part(4)}`] } }],
            handle: [
              { handler: "headers", response: { set: { ...DIRECT_HEADERS, "Content-Type": [`${part(2)}/${part(3)}`] } } },
              // Deferred: file_server sets its own ETag (mtime and size) and Last-Modified.
              { handler: "headers", response: { set: { Etag: [`"${part(4)}"`] }, delete: ["Last-Modified"], deferred: true } },
              { handler: "rewrite", uri: "{http.matchers.file.relative}" },
              { handler: "file_server", root: files.links },
            ],
          },
        ],
      },
    ],
  };
}

/** What Slipway's content path sends with a file shown inline (http/cdn.ts, contentAnswer and the security defaults). */
const DIRECT_HEADERS: Record<string, string[]> = {
  "Content-Disposition": ["inline"],
  "Cache-Control": ["public, max-age=31536000, immutable"],
  "Content-Security-Policy": ["sandbox"],
  "X-Content-Type-Options": ["nosniff"],
  "Cross-Origin-Resource-Policy": ["cross-origin"],
  "Cross-Origin-Opener-Policy": ["same-origin"],
  "Referrer-Policy": ["strict-origin-when-cross-origin"],
};

function lookupRoute(platformHostname: string, slipway: Json, files: EdgeCdnFiles): Json {
  const header = (name: string) => `{http.reverse_proxy.header.${name}}`;
  return {
    match: [{ host: [platformHostname], path: ["/cdn/*"], method: ["GET", "HEAD"] }],
    handle: [
      {
        ...slipway,
        headers: { request: { set: { [EDGE_TOKEN_HEADER]: [files.token] } } },
        handle_response: [
          {
            match: { headers: { [SENDFILE_HEADER]: [] } },
            routes: [
              {
                handle: [
                  { handler: "copy_response_headers", include: CONTENT_HEADERS },
                  {
                    handler: "headers",
                    request: { set: { Range: [header(SENDFILE_RANGE_HEADER)] }, delete: CONDITIONS },
                    // Deferred: file_server sets its own ETag (mtime and size) and Last-Modified.
                    response: { set: { Etag: [header("Etag")] }, delete: ["Last-Modified"], deferred: true },
                  },
                  { handler: "rewrite", uri: header(SENDFILE_HEADER) },
                  { handler: "file_server", root: files.root },
                ],
              },
            ],
          },
        ],
      },
    ],
    terminal: true,
  };
}
