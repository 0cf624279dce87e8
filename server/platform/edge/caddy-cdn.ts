// CDN file bytes sent by Caddy (EDGE=caddy, local storage, EDGE_CDN_FILES=caddy): the X-Accel-Redirect pattern.
// Every request for the platform's content path (`/cdn/…`) still goes to Slipway first, with a token only this
// configuration carries; Slipway looks the file up as always (a deleted file is a 404 from Slipway, a 304 or a
// 416 is answered there too) and, instead of the bytes, answers with the headers of the content and the file's
// name inside the CDN folder. Caddy then serves that file with `file_server` (sendfile on plain HTTP), the
// range Slipway settled on, and Slipway's headers. The URL never names a file on disk: only Slipway's answer
// does, and file_server keeps it inside the folder, which holds nothing but CDN objects.
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
  /** Random, per Slipway process: a client cannot make Slipway answer with a file name. */
  token: string;
}

/** The route of the platform host's content path, placed before the host's catch-all route to Slipway. */
export function cdnRoute(platformHostname: string, slipwayDial: string, files: EdgeCdnFiles): Json {
  const header = (name: string) => `{http.reverse_proxy.header.${name}}`;
  return {
    match: [{ host: [platformHostname], path: ["/cdn/*"], method: ["GET", "HEAD"] }],
    handle: [
      {
        handler: "reverse_proxy",
        upstreams: [{ dial: slipwayDial }],
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
