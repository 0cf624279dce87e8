// Static sites through the router: content types, validators, caching, folders, and a folder written by an
// untrusted sandbox user (symlinks out of it, traversal, dot-files, FIFOs).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { TestRoutes } from "./router-helpers.ts";

const SECRET = "platform-database-contents";
const routes = new TestRoutes();
let server: TestServer;
let tmp: string;

const get = (pathname: string, headers: Record<string, string> = {}, method = "GET") => request(server.url, "site.localhost", pathname, { headers, method });

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-static-"));
  const root = path.join(tmp, "site");
  const outside = path.join(tmp, "outside");
  fs.mkdirSync(path.join(root, "docs"), { recursive: true });
  fs.mkdirSync(path.join(root, ".well-known"));
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, "index.html"), "<h1>home</h1>");
  fs.writeFileSync(path.join(root, "style.css"), "body{}");
  fs.writeFileSync(path.join(root, "app.js"), "console.log(1)");
  fs.writeFileSync(path.join(root, "logo.svg"), "<svg/>");
  fs.writeFileSync(path.join(root, "data.bin"), Buffer.from([1, 2, 3]));
  fs.writeFileSync(path.join(root, "docs", "index.html"), "<h1>docs</h1>");
  fs.writeFileSync(path.join(root, "with space.txt"), "spaced");
  fs.writeFileSync(path.join(root, ".env"), "SECRET=1");
  fs.writeFileSync(path.join(root, ".well-known", "security.txt"), "Contact: x");
  fs.writeFileSync(path.join(outside, "slipway.db"), SECRET);
  fs.symlinkSync(path.join(outside, "slipway.db"), path.join(root, "planted.css"));
  fs.symlinkSync(outside, path.join(root, "linked"));
  fs.symlinkSync("style.css", path.join(root, "alias.css"));
  execFileSync("mkfifo", [path.join(root, "pipe.txt")]);
  routes.targets.set("site", { kind: "static", root });
  server = await startServer({}, { routeTable: routes });
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("static sites", () => {
  it("serves files with their content type, a strong ETag, Last-Modified and no platform headers", async () => {
    const expected = {
      "/": "text/html; charset=utf-8",
      "/style.css": "text/css; charset=utf-8",
      "/app.js": "text/javascript; charset=utf-8",
      "/logo.svg": "image/svg+xml",
      "/data.bin": "application/octet-stream",
      "/with%20space.txt": "text/plain; charset=utf-8",
      "/.well-known/security.txt": "text/plain; charset=utf-8",
    };
    for (const [pathname, type] of Object.entries(expected)) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(200);
      expect(res.headers["content-type"], pathname).toBe(type);
      expect(res.headers.etag, pathname).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
      expect(Date.parse(res.headers["last-modified"]!), pathname).toBeGreaterThan(0);
      expect(res.headers["x-frame-options"]).toBeUndefined();
    }
    expect((await get("/")).body).toBe("<h1>home</h1>");
  });

  it("asks browsers to revalidate HTML and lets them keep other files a few minutes", async () => {
    expect((await get("/")).headers["cache-control"]).toBe("no-cache");
    expect((await get("/docs/")).headers["cache-control"]).toBe("no-cache");
    expect((await get("/style.css")).headers["cache-control"]).toBe("public, max-age=300");
  });

  it("answers a conditional GET with 304 while the file is unchanged, and 200 once it differs", async () => {
    const first = await get("/style.css");
    const byTag = await get("/style.css", { "if-none-match": first.headers.etag! });
    expect([byTag.status, byTag.body, byTag.headers.etag]).toEqual([304, "", first.headers.etag]);
    expect((await get("/style.css", { "if-none-match": `"other", ${first.headers.etag}` })).status).toBe(304);
    expect((await get("/style.css", { "if-modified-since": first.headers["last-modified"]! })).status).toBe(304);
    expect((await get("/style.css", { "if-none-match": '"other"' })).status).toBe(200);
    expect((await get("/style.css", { "if-modified-since": new Date(0).toUTCString() })).status).toBe(200);
  });

  it("answers HEAD with the headers of GET and no body", async () => {
    const res = await get("/app.js", {}, "HEAD");
    expect([res.status, res.body, res.headers["content-length"]]).toEqual([200, "", "14"]);
    expect((await get("/app.js", {}, "POST")).status).toBe(405);
  });

  it("serves one byte range, and 416 for a range past the end", async () => {
    const part = await get("/app.js", { range: "bytes=2-5" });
    expect([part.status, part.body, part.headers["content-range"]]).toEqual([206, "nsol", "bytes 2-5/14"]);
    expect((await get("/app.js", { range: "bytes=-3" })).body).toBe("(1)");
    expect((await get("/app.js", { range: "bytes=11-" })).body).toBe("(1)");
    const past = await get("/app.js", { range: "bytes=20-" });
    expect([past.status, past.headers["content-range"]]).toEqual([416, "bytes */14"]);
    // A range against an older version of the file sends it whole.
    const stale = await get("/app.js", { range: "bytes=2-5", "if-range": '"old"' });
    expect([stale.status, stale.body]).toEqual([200, "console.log(1)"]);
  });

  it("serves a folder's index.html, redirecting to the trailing slash first", async () => {
    const res = await get("/docs?x=1");
    expect([res.status, res.headers.location]).toEqual([301, "/docs/?x=1"]);
    expect((await get("/docs/")).body).toBe("<h1>docs</h1>");
  });

  it("answers a missing file with a 404 page", async () => {
    const res = await get("/nope.html");
    expect(res.status).toBe(404);
    expect(res.body).toContain("There is nothing at this address");
  });

  it("never follows a symlink out of the site's folder, but follows one inside it", async () => {
    for (const pathname of ["/planted.css", "/linked/slipway.db", "/linked/"]) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(404);
      expect(res.body).not.toContain(SECRET);
    }
    expect((await get("/alias.css")).body).toBe("body{}");
  });

  it("refuses traversal, backslashes, NUL and bad encodings with 400, and hides dot-files", async () => {
    for (const pathname of ["/../outside/slipway.db", "/%2e%2e/outside/slipway.db", "/docs/%2E%2E/%2e%2e/outside/slipway.db", "/..%2foutside%2fslipway.db", "/docs\\..\\..\\outside\\slipway.db", "/%5c..%5coutside", "/index.html%00.css", "/%E0%A4%A"]) {
      const res = await get(pathname);
      expect(res.status, pathname).toBe(400);
      expect(res.body).not.toContain(SECRET);
    }
    expect((await get("/.env")).status).toBe(404);
    expect((await get("/docs/.env")).status).toBe(404);
  });

  it("does not hang on a FIFO planted in the folder", async () => {
    expect((await get("/pipe.txt")).status).toBe(404);
  });
});
