// The CDN file store over REST and GraphQL: access (unauthenticated, scopes, another user's file), invalid
// requests, the upload → public URL → content round trip, and what the content is served with.
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import type { TestServer } from "../helpers/server.ts";
import { bearer, issueTokens, registerClient, startOAuthServer } from "../oauth/helpers.ts";
import { fetchContent, storedObjects, uploadFile } from "./helpers.ts";

let server: TestServer;
let owner: Client;
let other: Client;

beforeAll(async () => {
  server = await startOAuthServer();
  owner = new Client(server.url);
  await owner.signup();
  other = new Client(server.url);
  await other.signup();
});
afterAll(() => server?.close());

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

describe("access", () => {
  it("answers 401 to every owner route without credentials", async () => {
    const anonymous = new Client(server.url);
    const answers = [
      await anonymous.get("/api/cdn"),
      await uploadFile(anonymous, "hi"),
      await anonymous.request("DELETE", "/api/cdn/abc"),
      await anonymous.graphql(`{ files { id } }`),
    ];
    for (const res of answers.slice(0, 3)) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthenticated");
    }
    expect(answers[3].body.errors?.[0].extensions?.code).toBe("unauthenticated");
  });

  it("lets a read:apps token list but not upload or delete (403 insufficient_scope); write:apps uploads", async () => {
    const client = await registerClient(owner);
    const reader = bearer(server, (await issueTokens(server, owner, client, "read:apps")).access_token);
    expect((await reader.get("/api/cdn")).status).toBe(200);
    const upload = await uploadFile(reader, "nope");
    expect(upload.status).toBe(403);
    expect(upload.body.error.code).toBe("insufficient_scope");
    const file = (await uploadFile(owner, "mine")).body;
    const del = await reader.request("DELETE", `/api/cdn/${file.id}`);
    expect(del.status).toBe(403);
    expect(del.body.error.code).toBe("insufficient_scope");
    const userOnly = bearer(server, (await issueTokens(server, owner, client, "read:user")).access_token);
    expect((await userOnly.get("/api/cdn")).body.error.code).toBe("insufficient_scope");
    const writer = bearer(server, (await issueTokens(server, owner, client, "read:apps write:apps")).access_token);
    const made = await uploadFile(writer, "by token");
    expect(made.status).toBe(201);
    expect((await writer.request("DELETE", `/api/cdn/${made.body.id}`)).status).toBe(204);
    expect((await owner.request("DELETE", `/api/cdn/${file.id}`)).status).toBe(204);
  });

  it("treats another user's file as not found (404), and never lists it", async () => {
    const file = (await uploadFile(owner, "private list, public bytes")).body;
    const del = await other.request("DELETE", `/api/cdn/${file.id}`);
    expect(del.status).toBe(404);
    expect(del.body.error.code).toBe("not_found");
    const gql = await other.graphql(`mutation($id: ID!) { deleteFile(id: $id) }`, { id: file.id });
    expect(gql.body.errors?.[0].extensions?.code).toBe("not_found");
    expect((await other.get("/api/cdn")).body).toEqual([]);
    expect((await owner.get("/api/cdn")).body.map((f: { id: string }) => f.id)).toContain(file.id);
    // Still there, and still public.
    expect((await fetchContent(file.url)).body.toString()).toBe("private list, public bytes");
  });

  it("lets no one claim another user's upload id", async () => {
    const gql = await owner.graphql(`mutation { uploadFile(upload: "00000000-0000-0000-0000-000000000000") { ... on NotFoundError { code message } } }`);
    expect(gql.body.data.uploadFile.code).toBe("not_found");
  });
});

describe("invalid requests", () => {
  it("refuses an upload that is not multipart (415), lacks the file part (400) or is cut off (400), keeping nothing", async () => {
    const before = storedObjects(server).length;
    const json = await owner.post("/api/cdn", { file: "x" });
    expect(json.status).toBe(415);
    expect(json.body.error.message).toMatch(/multipart/);
    const form = new FormData();
    form.append("other", "value");
    const noFile = await owner.request("POST", "/api/cdn", { body: form });
    expect(noFile.status).toBe(400);
    expect(noFile.body.error.message).toMatch(/part named file/);
    const cutOff = `--b\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\nsome text and then nothing`;
    const truncated = await owner.request("POST", "/api/cdn", { body: cutOff, headers: { "content-type": "multipart/form-data; boundary=b" } });
    expect(truncated.status).toBe(400);
    expect(truncated.body.error.code).toBe("invalid_request");
    expect(storedObjects(server).length).toBe(before);
  });

  it("answers 404 not_found for unknown ids, on every route", async () => {
    for (const res of [
      await new Client(server.url).get("/api/cdn/doesnotexist"),
      await new Client(server.url).get("/api/cdn/..%2F..%2Fetc%2Fpasswd"),
      await new Client(server.url).get("/cdn/doesnotexist/name.txt"),
      await owner.request("DELETE", "/api/cdn/doesnotexist"),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
  });

  it("answers 404 for a file gone from the disk behind Slipway's back, without the content's year-long caching", async () => {
    const orphan = (await uploadFile(owner, "orphan-content", "orphan.txt")).body;
    const { res: served, location } = await fetchContent(orphan.url);
    expect(served.status).toBe(200);
    const storageDir = path.join(server.config.dataDir, "storage", "cdn");
    for (const name of fs.readdirSync(storageDir)) {
      if (fs.readFileSync(path.join(storageDir, name), "utf8") === "orphan-content") fs.rmSync(path.join(storageDir, name));
    }
    const gone = await fetch(location);
    expect(gone.status).toBe(404);
    expect((await gone.json()).error.code).toBe("not_found");
    expect(gone.headers.get("cache-control")).toBeNull();
    expect(gone.headers.get("etag")).toBeNull();
  });

  it("refuses a page size out of range with invalid_request", async () => {
    const res = await owner.graphql(`{ files(first: 0) { id } }`);
    expect(res.body.errors?.[0].extensions?.code).toBe("invalid_request");
    expect(res.body.errors?.[0].message).toMatch(/1 to 100/);
  });
});

describe("upload and fetch", () => {
  it("stores a file, lists it newest first, counts it in the usage, and serves it to anyone by its url", async () => {
    const text = "Hello, CDN!\n";
    const res = await uploadFile(owner, text, "greeting.txt", "text/plain");
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: "greeting.txt",
      size: text.length,
      contentType: "text/plain",
      sha256: sha256(text),
      url: `${server.url}/api/cdn/${res.body.id}`,
      createdAt: expect.any(String),
    });
    const second = (await uploadFile(owner, "later")).body;
    const list = ((await owner.get("/api/cdn")).body as { id: string }[]).map((f) => f.id);
    expect(list.indexOf(second.id)).toBe(0);
    expect(list.indexOf(res.body.id)).toBe(1);
    const page = await owner.graphql(`query($after: String) { files(first: 1, after: $after) { id } }`, { after: second.id });
    expect(page.body.data.files).toEqual([{ id: res.body.id }]);
    const usage = (await owner.get("/api/me")).body.quota.usage.cdnBytes;
    const sizes = ((await owner.get("/api/cdn")).body as { size: number }[]).reduce((sum, f) => sum + f.size, 0);
    expect(usage).toBe(sizes);

    const { res: content, body, location } = await fetchContent(res.body.url);
    // The path names the representation (services/cdn-layout.ts) and ends with the name, which a browser saves it as.
    expect(new URL(location).pathname).toBe(`/cdn/${res.body.id}/text/plain/${sha256(text)}/greeting.txt`);
    expect(content.status).toBe(200);
    expect(body.toString()).toBe(text);
    expect(content.headers.get("content-type")).toBe("text/plain");
    expect(content.headers.get("content-length")).toBe(String(text.length));
    expect(content.headers.get("etag")).toBe(`"${sha256(text)}"`);
    expect(content.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(content.headers.get("x-content-type-options")).toBe("nosniff");
    expect(content.headers.get("content-security-policy")).toBe("sandbox");
    expect(content.headers.get("content-disposition")).toBe("inline");
    // Content paths given out before (`/cdn/:id/:name`) still work.
    const old = await fetch(`${server.url}/cdn/${res.body.id}/greeting.txt`);
    expect([old.status, await old.text()]).toEqual([200, text]);
  });

  it("keeps only the file's own name, without folders or control characters", async () => {
    const res = await uploadFile(owner, "x", "../../etc/\u0007ünïcode name.txt", "Text/Plain; charset=UTF-8");
    expect(res.status).toBe(201);
    expect(res.body.name).toBe("ünïcode name.txt");
    expect(res.body.contentType).toBe("text/plain");
    const { res: content, location } = await fetchContent(res.body.url);
    expect(location).toMatch(/\/%C3%BCn%C3%AFcode%20name\.txt$/);
    expect(content.headers.get("content-disposition")).toBe("inline");
    // A download carries the name in Content-Disposition, with an ASCII fallback.
    const pdf = (await uploadFile(owner, "%PDF-1.4", "ünïcode name.pdf", "application/pdf")).body;
    const { res: download } = await fetchContent(pdf.url);
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="_n_code name.pdf"; filename*=UTF-8''%C3%BCn%C3%AFcode%20name.pdf`);
  });

  it("stores an empty file", async () => {
    const res = await uploadFile(owner, "", "empty.bin", "application/octet-stream");
    expect(res.status).toBe(201);
    expect(res.body.size).toBe(0);
    const { res: content, body } = await fetchContent(res.body.url);
    expect(content.status).toBe(200);
    expect(body.length).toBe(0);
    expect((await fetchContent(res.body.url, { range: "bytes=-1" })).res.status).toBe(416);
  });

  it("serves active types (HTML, SVG, XML, JavaScript) as sandboxed downloads", async () => {
    for (const [name, type] of [["page.html", "text/html"], ["icon.svg", "image/svg+xml"], ["feed.xml", "application/xml"], ["app.js", "text/javascript"], ["x.xhtml", "application/xhtml+xml"]]) {
      const file = (await uploadFile(owner, "<script>alert(1)</script>", name, type)).body;
      const { res } = await fetchContent(file.url);
      expect(res.headers.get("content-disposition"), type).toMatch(/^attachment; /);
      expect(res.headers.get("content-security-policy")).toBe("sandbox");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });
});

describe("ranges and validators", () => {
  const data = Buffer.from("0123456789abcdefghij");
  let url: string;
  beforeAll(async () => {
    url = (await uploadFile(owner, data, "digits.txt")).body.url;
  });

  it("sends every file's own bytes to concurrent slow downloads, some of them cut off mid-answer", async () => {
    // Answers are read into reused buffers (whole up to 2 MiB, in 2 MiB chunks beyond): one must never hold two
    // answers at once, nor a chunk be read over before it was sent, whether clients read slowly or hang up early.
    const contents = [
      ...["a", "b", "c"].map((letter, i) => Buffer.alloc(2 * 1024 * 1024 - 1000 * i, letter)),
      randomBytes(5 * 1024 * 1024 + 123),
      // More than loopback's socket buffers take at once: the server must wait for the client to read.
      randomBytes(24 * 1024 * 1024 + 1),
    ];
    const locations = await Promise.all(contents.map(async (bytes, i) => (await fetchContent((await uploadFile(owner, bytes, `f${i}.bin`, "application/octet-stream")).body.url)).location));
    // A client that sends its request and reads nothing for a while, then reads the answer (or hangs up).
    const slowly = (url: string, cut: boolean) =>
      new Promise<Buffer | null>((resolve, reject) => {
        const { hostname, port, pathname } = new URL(url);
        const socket = net.connect(Number(port), hostname, () => socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`));
        socket.pause();
        const chunks: Buffer[] = [];
        socket.on("data", (chunk: Buffer) => chunks.push(chunk)).on("error", reject);
        socket.on("end", () => {
          const answer = Buffer.concat(chunks);
          resolve(answer.subarray(answer.indexOf("\r\n\r\n") + 4));
        });
        setTimeout(() => {
          if (!cut) return void socket.resume();
          socket.destroy();
          resolve(null);
        }, 150);
      });
    const downloads = Array.from({ length: 25 }, async (_, n) => {
      const i = n % contents.length;
      const body = await slowly(locations[i], n % 4 === 3);
      if (body) expect(body.equals(contents[i]), `download ${n} of file ${i}: ${body.length} bytes, ${body.subarray(0, 40).toString("latin1")}`).toBe(true);
    });
    await Promise.all(downloads);
  });

  it("sends a range of a large file across its read chunks, and the whole file, byte for byte", async () => {
    const big = randomBytes(6 * 1024 * 1024 + 7);
    const bigUrl = (await uploadFile(owner, big, "big.bin", "application/octet-stream")).body.url;
    const whole = await fetchContent(bigUrl);
    expect(whole.res.status).toBe(200);
    expect(whole.body.equals(big)).toBe(true);
    const [from, to] = [2 * 1024 * 1024 - 5, 4 * 1024 * 1024 + 9];
    const part = await fetchContent(bigUrl, { range: `bytes=${from}-${to}` });
    expect(part.res.status).toBe(206);
    expect(part.res.headers.get("content-range")).toBe(`bytes ${from}-${to}/${big.length}`);
    expect(part.body.equals(big.subarray(from, to + 1))).toBe(true);
  });

  it("answers a range with 206 and Content-Range: a-b, a- and the suffix -n", async () => {
    const cases: [string, string, string][] = [
      ["bytes=0-4", "01234", "bytes 0-4/20"],
      ["bytes=15-", "fghij", "bytes 15-19/20"],
      ["bytes=-3", "hij", "bytes 17-19/20"],
      ["bytes=-50", data.toString(), "bytes 0-19/20"],
      ["bytes=18-100", "ij", "bytes 18-19/20"],
    ];
    for (const [range, expected, contentRange] of cases) {
      const { res, body } = await fetchContent(url, { range });
      expect(res.status, range).toBe(206);
      expect(body.toString()).toBe(expected);
      expect(res.headers.get("content-range")).toBe(contentRange);
      expect(res.headers.get("content-length")).toBe(String(expected.length));
    }
  });

  it("answers 416 with Content-Range bytes */size to an unsatisfiable range, and ignores malformed or multiple ranges", async () => {
    for (const range of ["bytes=20-", "bytes=100-200", "bytes=-0"]) {
      const { res } = await fetchContent(url, { range });
      expect(res.status, range).toBe(416);
      expect(res.headers.get("content-range")).toBe("bytes */20");
    }
    for (const range of ["bytes=5-2", "items=0-1", "bytes=0-1,5-6", "bytes=x-y"]) {
      const { res, body } = await fetchContent(url, { range });
      expect(res.status, range).toBe(200);
      expect(body.equals(data)).toBe(true);
    }
  });

  it("answers 304 to If-None-Match with the ETag, 200 to another one; If-Range with another ETag gets the whole file", async () => {
    const etag = `"${sha256(data)}"`;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const { res, body } = await fetchContent(url, { "if-none-match": header });
      expect(res.status, header).toBe(304);
      expect(body.length).toBe(0);
      expect(res.headers.get("etag")).toBe(etag);
    }
    expect((await fetchContent(url, { "if-none-match": '"other"' })).res.status).toBe(200);
    expect((await fetchContent(url, { range: "bytes=0-1", "if-range": etag })).res.status).toBe(206);
    expect((await fetchContent(url, { range: "bytes=0-1", "if-range": '"stale"' })).res.status).toBe(200);
  });
});
