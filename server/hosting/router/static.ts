// Static sites, served from the release's folder. The folder's files were written by the app's own
// sandbox user, so nothing it plants may reach outside it:
// - the URL path is decoded once and refused if it holds `..`, a backslash or NUL (400);
// - dot-files are hidden (404), except /.well-known/;
// - a file is opened first, then the path the kernel actually opened (/proc/self/fd) must lie inside the
//   folder's real path: a symlink pointing outside, even one swapped in between a check and the open, is 404.
// Answers carry a strong ETag (mtime + size, as nginx's), Last-Modified, 304 for a conditional GET, and one
// byte range when asked (media players seek with them).
import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream";
import mime from "mime-types";
import { pages, sendPage } from "./pages.ts";

/** HTML is revalidated on every visit, so a new deployment shows at once. */
const HTML_CACHE = "no-cache";
/** Other files (scripts, styles, images) may be reused for five minutes before revalidating. */
const ASSET_CACHE = "public, max-age=300";

const NOT_FOUND_CODES = new Set(["ENOENT", "ENOTDIR", "ELOOP", "EACCES", "EPERM", "ENAMETOOLONG", "EISDIR", "ENXIO"]);

type Resolved = { ok: true; segments: string[] } | { ok: false; status: 400 | 404 };

/** The request path as folder-relative segments, or why it is refused. */
export function resolvePath(url: string): Resolved {
  const query = url.indexOf("?");
  let decoded: string;
  try {
    decoded = decodeURIComponent(query === -1 ? url : url.slice(0, query));
  } catch {
    return { ok: false, status: 400 };
  }
  if (!decoded.startsWith("/") || decoded.includes("\0") || decoded.includes("\\")) return { ok: false, status: 400 };
  const segments: string[] = [];
  for (const segment of decoded.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") return { ok: false, status: 400 };
    if (segment.startsWith(".") && !(segments.length === 0 && segment === ".well-known")) return { ok: false, status: 404 };
    segments.push(segment);
  }
  return { ok: true, segments };
}

/** Where the kernel says an open file is (Linux), or, elsewhere, its real path when it is still the same file. */
async function openedPath(file: FileHandle, name: string, stat: fs.Stats): Promise<string | null> {
  try {
    return await fs.promises.readlink(`/proc/self/fd/${file.fd}`);
  } catch {
    const real = await fs.promises.realpath(name);
    const now = await fs.promises.stat(real);
    return now.ino === stat.ino && now.dev === stat.dev ? real : null;
  }
}

/** Opens `name` if, once opened, it lies inside `realRoot`; null otherwise. FIFOs do not block the open. */
async function openInside(realRoot: string, name: string): Promise<{ file: FileHandle; stat: fs.Stats } | null> {
  const file = await fs.promises.open(name, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = await file.stat();
    const opened = await openedPath(file, name, stat);
    if (opened !== null && (opened === realRoot || opened.startsWith(realRoot + path.sep)) && (stat.isFile() || stat.isDirectory())) {
      return { file, stat };
    }
  } catch (error) {
    await file.close();
    throw error;
  }
  await file.close();
  return null;
}

function isFresh(req: IncomingMessage, etag: string, mtime: Date): boolean {
  const noneMatch = req.headers["if-none-match"];
  if (noneMatch !== undefined) {
    return noneMatch.split(",").some((tag) => {
      const t = tag.trim();
      return t === "*" || t === etag || t === `W/${etag}`;
    });
  }
  const since = req.headers["if-modified-since"];
  if (since === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && Math.floor(mtime.getTime() / 1000) * 1000 <= time;
}

type Found = { file: FileHandle; stat: fs.Stats; name: string };

/** The file a path names (a folder's index.html), "folder" for a folder asked without its trailing slash, or null. */
async function locate(root: string, segments: string[], trailingSlash: boolean): Promise<Found | "folder" | null> {
  const realRoot = await fs.promises.realpath(root);
  const name = path.join(realRoot, ...segments);
  const found = await openInside(realRoot, name);
  if (!found?.stat.isDirectory()) return found && { ...found, name };
  await found.file.close();
  if (!trailingSlash && segments.length > 0) return "folder";
  const index = await openInside(realRoot, path.join(name, "index.html"));
  if (index?.stat.isFile()) return { ...index, name: "index.html" };
  await index?.file.close();
  return null;
}

export async function serveStatic(req: IncomingMessage, res: ServerResponse, root: string): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") return sendPage(res, pages.methodNotAllowed, req.method);
  const url = req.url ?? "/";
  const resolved = resolvePath(url);
  if (!resolved.ok) return sendPage(res, resolved.status === 400 ? pages.badRequest : pages.notFound, req.method);
  const query = url.indexOf("?");
  const pathname = query === -1 ? url : url.slice(0, query);

  let found: Found | "folder" | null;
  try {
    found = await locate(root, resolved.segments, pathname.endsWith("/"));
  } catch (error) {
    const code = (error as { code?: string }).code;
    return sendPage(res, code && NOT_FOUND_CODES.has(code) ? pages.notFound : pages.internalError, req.method);
  }
  if (found === null) return sendPage(res, pages.notFound, req.method);
  if (found === "folder") {
    // Built from the checked segments, never from the raw path (`//host` would redirect off-site).
    const location = `/${resolved.segments.map(encodeURIComponent).join("/")}/${query === -1 ? "" : url.slice(query)}`;
    res.writeHead(301, { location, "content-length": "0", "cache-control": "no-cache" });
    return void res.end();
  }
  send(req, res, found, mime.contentType(path.extname(found.name)) || "application/octet-stream");
}

/**
 * The one byte range a GET asks for (`bytes=a-b`, `bytes=a-`, `bytes=-n`), "unsatisfiable", or null to send
 * the whole file (no Range, several ranges, a malformed one, or an If-Range that no longer matches).
 */
function rangeOf(req: IncomingMessage, size: number, etag: string, lastModified: string): { start: number; end: number } | "unsatisfiable" | null {
  const header = req.headers.range;
  const ifRange = req.headers["if-range"];
  if (req.method !== "GET" || !header || (ifRange !== undefined && ifRange !== etag && ifRange !== lastModified)) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return null;
  const [start, end] =
    match[1] === "" ? [Math.max(0, size - Number(match[2])), size - 1] : [Number(match[1]), match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1)];
  if (start > end || start >= size) return "unsatisfiable";
  return { start, end };
}

function send(req: IncomingMessage, res: ServerResponse, { file, stat }: Found, contentType: string): void {
  const etag = `"${Math.floor(stat.mtimeMs).toString(16)}-${stat.size.toString(16)}"`;
  const lastModified = stat.mtime.toUTCString();
  const headers: Record<string, string> = {
    etag,
    "last-modified": lastModified,
    "cache-control": contentType.startsWith("text/html") ? HTML_CACHE : ASSET_CACHE,
    "x-content-type-options": "nosniff",
  };
  if (isFresh(req, etag, stat.mtime)) {
    void file.close();
    res.writeHead(304, headers);
    return void res.end();
  }
  const range = rangeOf(req, stat.size, etag, lastModified);
  if (range === "unsatisfiable") {
    void file.close();
    res.writeHead(416, { ...headers, "content-range": `bytes */${stat.size}`, "content-length": "0" });
    return void res.end();
  }
  const { start, end } = range ?? { start: 0, end: stat.size - 1 };
  res.writeHead(range ? 206 : 200, {
    ...headers,
    "accept-ranges": "bytes",
    "content-type": contentType,
    "content-length": String(end - start + 1),
    ...(range ? { "content-range": `bytes ${start}-${end}/${stat.size}` } : {}),
  });
  if (req.method === "HEAD" || end < start) {
    void file.close();
    return void res.end();
  }
  pipeline(file.createReadStream({ start, end }), res, () => {});
}
