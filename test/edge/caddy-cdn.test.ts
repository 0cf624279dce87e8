// EDGE=caddy with local storage (EDGE_CDN_FILES=caddy, the default): a real Caddy sends CDN files with
// file_server, on its own for a whole file shown inline, after Slipway's lookup otherwise
// (server/platform/edge/caddy-cdn.ts). Downloads through Caddy keep Slipway's bytes and headers, ranges and
// validators; a deleted file is a 404; a path with altered claims is not sent on Caddy's own; no URL reaches a
// file outside the CDN folder; a client cannot make Slipway name a file (only Caddy's token does), and
// EDGE_CDN_FILES=slipway leaves the bytes to Slipway.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest } from "../../server/platform/edge/caddy.ts";
import { uploadFile } from "../cdn/helpers.ts";
import { waitFor } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { HAS_CADDY, startCaddy, type TestCaddy } from "../helpers/caddy.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

if (!HAS_CADDY) console.warn("test/edge/caddy-cdn.test.ts: skipped: `caddy` is not installed (apt-get install caddy)");

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request with the path sent exactly as written (no normalization of `..` or `%2f` by a URL parser). */
function get(base: string, rawPath: string, options: { ca?: string; method?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const url = new URL(base);
  const secure = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      { host: url.hostname, port: url.port, path: rawPath, method: options.method ?? "GET", headers: options.headers, agent: false, ...(secure ? { ca: options.ca } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end();
  });
}

describe.skipIf(!HAS_CADDY)("CDN files sent by a real Caddy (EDGE=caddy, local storage)", () => {
  let caddy: TestCaddy;
  let admin: { host: string; port: number };
  let server: TestServer;
  let owner: Client;
  let ca: string;
  let edge: string;
  const bytes = randomBytes(3 * 1024 * 1024 + 17);
  let file: { id: string; url: string; sha256: string };

  /** The content path `GET /api/cdn/:id` redirects to, asked of Caddy. */
  async function contentPath(id: string): Promise<string> {
    const redirect = await get(edge, `/api/cdn/${id}`, { ca });
    expect(redirect.status).toBe(302);
    return redirect.headers.location!;
  }

  beforeAll(async () => {
    caddy = await startCaddy("slipway-caddy-cdn-");
    admin = caddy.admin;
    server = await startServer({ ...caddy.env, DEFAULT_REQUESTS_PER_MINUTE: "100000" });
    ca = await caddy.ca();
    edge = `https://127.0.0.1:${caddy.ports.https}`;
    owner = new Client(server.url);
    await owner.signup();
    const res = await uploadFile(owner, bytes, "données brutes.bin", "application/octet-stream");
    expect(res.status).toBe(201);
    file = res.body;
    await waitFor(() => get(edge, "/api/openapi.json", { ca }).then((r) => r.status === 200, () => false), 15_000, "the platform through Caddy");
  });

  afterAll(async () => {
    try {
      await server?.close();
    } finally {
      await caddy?.stop();
    }
  });

  /** Slipway's lookups for the edge made while `work` runs (two for a file not cached yet: the cache, then the database). */
  async function lookupsDuring(work: () => Promise<void>): Promise<number> {
    const cdn = server.slipway.platform.services.cdn;
    const { cachedPublicFile, publicFile } = cdn;
    let lookups = 0;
    cdn.cachedPublicFile = (id) => (lookups++, cachedPublicFile(id));
    cdn.publicFile = (id) => (lookups++, publicFile(id));
    try {
      await work();
    } finally {
      Object.assign(cdn, { cachedPublicFile, publicFile });
    }
    return lookups;
  }

  /** The headers a client is sent, less the ones of the connection. */
  const contentHeaders = (answer: Answer) => {
    const { date: _date, connection: _connection, "keep-alive": _keepAlive, server: _server, "alt-svc": _altSvc, ...rest } = answer.headers;
    return rest;
  };

  it("sends the bytes with Slipway's headers: type, length, disposition, strong ETag, caching, nosniff, sandbox", async () => {
    const location = await contentPath(file.id);
    expect(location).toBe(`/cdn/${file.id}/application/octet-stream/${file.sha256}/donn%C3%A9es%20brutes.bin`);
    let res!: Answer;
    // A whole file shown inline: Caddy sends it on its own, through the link Slipway made at upload.
    expect(await lookupsDuring(async () => void (res = await get(edge, location, { ca })))).toBe(0);
    expect(res.status).toBe(200);
    expect(res.body.equals(bytes)).toBe(true);
    expect(contentHeaders(res)).toEqual(contentHeaders(await get(server.url, location)));
    expect(res.headers).toMatchObject({
      "content-type": "application/octet-stream",
      "content-length": String(bytes.length),
      "content-disposition": "inline",
      etag: `"${file.sha256}"`,
      "cache-control": "public, max-age=31536000, immutable",
      "accept-ranges": "bytes",
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox",
      "cross-origin-resource-policy": "cross-origin",
    });
    // Caddy's own validators and Slipway's instructions to Caddy never reach the client.
    expect(res.headers["last-modified"]).toBeUndefined();
    expect(Object.keys(res.headers).filter((name) => name.startsWith("x-slipway"))).toEqual([]);
    let head!: Answer;
    expect(await lookupsDuring(async () => void (head = await get(edge, location, { ca, method: "HEAD" })))).toBe(0);
    expect(head).toMatchObject({ status: 200, headers: { "content-length": String(bytes.length), etag: `"${file.sha256}"` } });
    expect(head.body.length).toBe(0);
  });

  it("sends an open range (`bytes=a-`, as browsers ask for media) on its own too, as Slipway would", async () => {
    const location = await contentPath(file.id);
    for (const start of [0, 1_000_000, bytes.length - 1]) {
      const range = `bytes=${start}-`;
      let res!: Answer;
      expect(await lookupsDuring(async () => void (res = await get(edge, location, { ca, headers: { range } }))), range).toBe(0);
      expect(res.status, range).toBe(206);
      expect(res.body.equals(bytes.subarray(start)), range).toBe(true);
      expect(contentHeaders(res), range).toEqual(contentHeaders(await get(server.url, location, { headers: { range } })));
    }
    // Past the end: 416, as from Slipway (only the short text of the body differs).
    const past = await get(edge, location, { ca, headers: { range: `bytes=${bytes.length}-` } });
    const fromSlipway = await get(server.url, location, { headers: { range: `bytes=${bytes.length}-` } });
    expect([past.status, past.headers["content-range"]]).toEqual([416, `bytes */${bytes.length}`]);
    expect([fromSlipway.status, fromSlipway.headers["content-range"]]).toEqual([416, `bytes */${bytes.length}`]);
    // An empty file has no link: Slipway answers its ranges (416), where Caddy would send the empty whole.
    const empty = (await uploadFile(owner, "", "empty.bin", "application/octet-stream")).body;
    const emptyPath = await contentPath(empty.id);
    expect((await get(edge, emptyPath, { ca, headers: { range: "bytes=0-" } })).status).toBe(416);
  });

  it("asks Slipway for every other range, any validator, and a path whose claims were altered", async () => {
    const location = await contentPath(file.id);
    const conditions: Record<string, string>[] = [
      { range: "bytes=0-9" },
      { range: "bytes=-5" },
      { range: "bytes=0-,5-" },
      { range: "bytes=0-", "if-range": `"${file.sha256}"` },
      { "if-none-match": `"${file.sha256}"` },
      { "if-modified-since": new Date().toUTCString() },
    ];
    for (const headers of conditions) {
      expect(await lookupsDuring(() => get(edge, location, { ca, headers }).then(() => {})), JSON.stringify(headers)).toBeGreaterThan(0);
    }
    // A path whose type, hash or id were altered names no link: Slipway answers, with the file as stored.
    const [, , id, , , sha256, name] = location.split("/");
    const png = (await uploadFile(owner, "not really a picture", "p.png", "image/png")).body;
    const pngPath = await contentPath(png.id);
    expect(pngPath).toBe(`/cdn/${png.id}/image/png/${png.sha256}/p.png`);
    const altered = [
      `/cdn/${id}/text/html/${sha256}/${name}`,
      `/cdn/${id}/image/png/${sha256}/${name}`,
      `/cdn/${id}/application/octet-stream/${png.sha256}/${name}`,
      `/cdn/${png.id}/application/octet-stream/${png.sha256}/p.png`,
    ];
    for (const attempt of altered) {
      let res!: Answer;
      expect(await lookupsDuring(async () => void (res = await get(edge, attempt, { ca }))), attempt).toBeGreaterThan(0);
      expect(res.status, attempt).toBe(200);
      expect(res.headers["content-type"], attempt).toBe(attempt.includes(png.id) ? "image/png" : "application/octet-stream");
      expect(res.headers.etag, attempt).toBe(`"${attempt.includes(png.id) ? png.sha256 : file.sha256}"`);
    }
    // An HTML upload has no link: it is a download, with its name, which only Slipway's answer carries.
    const html = (await uploadFile(owner, "<p>hi</p>", "page.html", "text/html")).body;
    const htmlPath = await contentPath(html.id);
    expect(await lookupsDuring(async () => void (await get(edge, htmlPath, { ca })))).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(server.config.dataDir, "storage", "cdn-edge", "text", "html"))).toBe(false);
  });

  it("links the files stored before links existed, at boot", async () => {
    const cdn = server.slipway.platform.services.cdn;
    const image = (await uploadFile(owner, "an old picture", "old.gif", "image/gif")).body;
    const link = path.join(server.config.dataDir, "storage", "cdn-edge", "image", "gif", `${image.id}.${image.sha256}`);
    expect(fs.readFileSync(link, "utf8")).toBe("an old picture");
    fs.rmSync(link);
    const location = await contentPath(image.id);
    expect(await lookupsDuring(() => get(edge, location, { ca }).then(() => {}))).toBeGreaterThan(0);
    expect(await cdn.linkStoredFiles()).toBe(1);
    expect(await cdn.linkStoredFiles()).toBe(0);
    let res!: Answer;
    expect(await lookupsDuring(async () => void (res = await get(edge, location, { ca })))).toBe(0);
    expect(res.body.toString()).toBe("an old picture");
  });

  it("sends an HTML upload as an attachment, never as a page of the platform's origin", async () => {
    const html = await uploadFile(owner, "<script>alert(1)</script>", "x.html", "text/html");
    const res = await get(edge, await contentPath(html.body.id), { ca });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe("<script>alert(1)</script>");
    expect(res.headers["content-type"]).toBe("text/html");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; /);
    expect(res.headers["content-security-policy"]).toBe("sandbox");
  });

  it("answers ranges (206, If-Range), 416, and 304 to If-None-Match as Slipway does", async () => {
    const location = await contentPath(file.id);
    const etag = `"${file.sha256}"`;
    const ranges: [string, number, number][] = [
      ["bytes=10-19", 10, 19],
      ["bytes=3145700-", 3145700, bytes.length - 1],
      ["bytes=-5", bytes.length - 5, bytes.length - 1],
    ];
    for (const [range, start, end] of ranges) {
      const res = await get(edge, location, { ca, headers: { range } });
      expect(res.status, range).toBe(206);
      expect(res.headers["content-range"], range).toBe(`bytes ${start}-${end}/${bytes.length}`);
      expect(res.body.equals(bytes.subarray(start, end + 1)), range).toBe(true);
    }
    expect((await get(edge, location, { ca, headers: { range: "bytes=0-3", "if-range": etag } })).status).toBe(206);
    const stale = await get(edge, location, { ca, headers: { range: "bytes=0-3", "if-range": '"another"' } });
    expect(stale.status).toBe(200);
    expect(stale.body.length).toBe(bytes.length);
    // Several ranges are ignored (the whole file), as Slipway does.
    expect((await get(edge, location, { ca, headers: { range: "bytes=0-1,5-6" } })).body.length).toBe(bytes.length);
    const unsatisfiable = await get(edge, location, { ca, headers: { range: `bytes=${bytes.length}-` } });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers["content-range"]).toBe(`bytes */${bytes.length}`);
    const cached = await get(edge, location, { ca, headers: { "if-none-match": etag } });
    expect(cached.status).toBe(304);
    expect(cached.body.length).toBe(0);
  });

  it("serves a deleted file no more (404), nor one gone from the disk", async () => {
    const doomed = (await uploadFile(owner, "short-lived", "doomed.txt")).body;
    const location = await contentPath(doomed.id);
    expect((await get(edge, location, { ca })).body.toString()).toBe("short-lived");
    expect((await owner.request("DELETE", `/api/cdn/${doomed.id}`)).status).toBe(204);
    expect((await get(edge, location, { ca })).status).toBe(404);
    expect((await get(edge, `/api/cdn/${doomed.id}`, { ca })).status).toBe(404);

    // Removed from the disk behind Slipway's back (as by another instance): 404, not Caddy's empty answer.
    const orphan = (await uploadFile(owner, "orphan", "orphan.txt")).body;
    const orphanPath = await contentPath(orphan.id);
    expect((await get(edge, orphanPath, { ca })).status).toBe(200);
    // Its object and its link, as another instance's delete removes them (the row there, this one's still cached).
    const storageDir = path.join(server.config.dataDir, "storage");
    for (const name of fs.readdirSync(storageDir, { recursive: true }) as string[]) {
      const file = path.join(storageDir, name);
      if (fs.statSync(file).isFile() && fs.readFileSync(file, "utf8") === "orphan") fs.rmSync(file);
    }
    const gone = await get(edge, orphanPath, { ca });
    expect(gone.status).toBe(404);
    expect(gone.headers["content-type"]).toMatch(/json/);
    expect(gone.headers["cache-control"]).toBeUndefined();
    expect(gone.headers["x-frame-options"]).toBe("DENY");
  });

  it("never sends a file outside the CDN folder, whatever the path", async () => {
    // The SQLite database, or (TEST_DATABASE=postgres, no such file) a canary written where it would be.
    const target = path.join(server.config.dataDir, "slipway.db");
    if (!fs.existsSync(target)) fs.writeFileSync(target, `canary ${Math.random()} ${Date.now()}`);
    const secret = fs.readFileSync(target).subarray(0, 16);
    const attempts = [
      "/cdn/../slipway.db",
      "/cdn/%2e%2e/%2e%2e/slipway.db",
      "/cdn/..%2f..%2fslipway.db",
      `/cdn/${file.id}/../../slipway.db`,
      "/cdn/..%2f..%2fsecrets/x/y",
      "/cdn/%2e%2e%2f%2e%2e%2fslipway.db/x",
      "/cdn/" + "../".repeat(12) + "etc/passwd",
      "/cdn/x/..%5c..%5cslipway.db",
    ];
    for (const attempt of attempts) {
      const res = await get(edge, attempt, { ca });
      // Normalised out of /cdn/, a path may land on the dashboard, whose pages answer 200 with its HTML shell.
      if (res.status === 200) expect([attempt, res.headers["content-type"]]).toEqual([attempt, expect.stringMatching(/^text\/html/)]);
      expect(res.body.includes(secret), attempt).toBe(false);
      expect(res.body.toString()).not.toMatch(/root:x:0:0/);
    }
    // A file's id with a traversal for a name still means that file (the name is only for the download).
    const renamed = await get(edge, `/cdn/${file.id}/..%2f..%2f..%2fslipway.db`, { ca });
    expect(renamed.status).toBe(200);
    expect(renamed.body.equals(bytes)).toBe(true);
  });

  it("names a file only to the edge: a client's token is replaced by Caddy's, and Slipway asked directly sends bytes", async () => {
    const location = await contentPath(file.id);
    const forged = await get(edge, location, { ca, headers: { "x-slipway-edge-token": "guess" } });
    expect(forged.status).toBe(200);
    expect(forged.body.equals(bytes)).toBe(true);

    // Slipway itself, without the token (or with a wrong one): the bytes, no file name.
    for (const headers of [{}, { "x-slipway-edge-token": "guess" }] as Record<string, string>[]) {
      const direct = await get(server.url, location, { headers });
      expect(direct.status).toBe(200);
      expect(direct.body.equals(bytes)).toBe(true);
      expect(direct.headers["x-slipway-sendfile"]).toBeUndefined();
    }
    // With the token Caddy was given (read from its configuration): a file name inside the CDN folder and no bytes.
    const config = (await adminRequest(admin, "GET", "/config/")).body;
    const token = /"X-Slipway-Edge-Token":\["([^"]+)"\]/.exec(config)![1];
    const told = await get(server.url, location, { headers: { "x-slipway-edge-token": token, range: "bytes=1-2" } });
    expect(told.status).toBe(200);
    expect(told.body.length).toBe(0);
    expect(told.headers["x-slipway-sendfile"]).toMatch(/^\/[0-9a-f-]{36}$/);
    expect(told.headers["x-slipway-range"]).toBe("bytes=1-2");
    expect(fs.readFileSync(path.join(server.config.dataDir, "storage", "cdn", told.headers["x-slipway-sendfile"] as string)).equals(bytes)).toBe(true);
  });
});

describe.skipIf(!HAS_CADDY)("EDGE_CDN_FILES=slipway", () => {
  it("loads no CDN route into Caddy: Slipway sends the bytes", async () => {
    const caddy = await startCaddy("slipway-caddy-cdn-off-");
    const { admin, ports } = caddy;
    let server: TestServer | undefined;
    try {
      server = await startServer({ ...caddy.env, EDGE_CDN_FILES: "slipway" });
      const config = (await adminRequest(admin, "GET", "/config/")).body;
      expect(config).toContain(`"listen":[":${ports.https}"]`);
      expect(config).not.toContain("file_server");
      expect(config).not.toContain("X-Slipway-Edge-Token");
      const ca = await caddy.ca();
      const owner = new Client(server.url);
      await owner.signup();
      const uploaded = (await uploadFile(owner, "streamed by Slipway", "s.txt")).body;
      const edge = `https://127.0.0.1:${ports.https}`;
      const location = (await get(edge, `/api/cdn/${uploaded.id}`, { ca })).headers.location!;
      const res = await get(edge, location, { ca });
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe("streamed by Slipway");
    } finally {
      await server?.close();
      await caddy.stop();
    }
  });
});
