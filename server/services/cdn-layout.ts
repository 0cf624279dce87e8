// Where a CDN file is found. Its bytes are the object `cdn/<uuid>`; its content path (where `GET /api/cdn/:id`
// redirects) names the file and the representation it is served as: `/cdn/<id>/<type>/<subtype>/<sha256>/<name>`.
// A file a browser shows without running anything (an image, audio, video, plain text…) also gets a second name
// for the same bytes on local disk, `cdn-edge/<type>/<subtype>/<id>.<sha256>` (a hard link), made of everything its
// content path claims. The edge sends such a file on its own, with no question to Slipway
// (server/platform/edge/caddy-cdn.ts): a path whose id, type or hash were altered names no link and goes to Slipway.
import type { CdnFile } from "./cdn.ts";

/** Types a browser shows without running anything; everything else is served as a download. */
const INLINE = /^(image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)|audio\/[\w.+-]+|video\/[\w.+-]+|text\/(plain|csv)|application\/(json|pdf|octet-stream)|font\/[\w.+-]+)$/;
/** The inline types a link can be named after: path segments that need no escaping. */
const LINKABLE = /^(image|audio|video|text|application|font)\/[a-z0-9][a-z0-9._-]{0,126}$/;

const LINKABLE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

type Described = Pick<CdnFile, "id" | "name" | "contentType" | "sha256">;

export function dispositionOf(file: Pick<CdnFile, "contentType">): "inline" | "attachment" {
  return INLINE.test(file.contentType) && file.contentType !== "application/pdf" ? "inline" : "attachment";
}

/** Where the local content of a file is served. */
export function contentPath(file: Described): string {
  const [type, subtype] = file.contentType.split("/").map(encodeURIComponent);
  return `/cdn/${file.id}/${type}/${subtype}/${file.sha256}/${encodeURIComponent(file.name)}`;
}

/**
 * The storage key of the file's link for the edge, or null for a file the edge must ask Slipway about. An empty file
 * has none: Caddy would answer a range of it with the (empty) whole, where Slipway answers 416.
 */
export function edgeLinkKey(file: Omit<Described, "name"> & Pick<CdnFile, "size">): string | null {
  const linkable =
    Number(file.size) > 0 &&
    dispositionOf(file) === "inline" &&
    LINKABLE.test(file.contentType) &&
    LINKABLE_ID.test(file.id) &&
    /^[0-9a-f]{64}$/.test(file.sha256);
  if (!linkable) return null;
  return `${EDGE_LINKS}/${file.contentType}/${file.id}.${file.sha256}`;
}

/** The folder of links, inside the storage folder. */
export const EDGE_LINKS = "cdn-edge";
