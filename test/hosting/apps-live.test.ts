// Real tiny apps deployed through the API and reached through the platform's own port by Host, as a user's
// visitors reach them: a Node app with a dependency from a lockfile, a static site, a Procfile app with a
// release phase, WebSockets, and a redeploy under continuous requests with no failed request.
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client } from "../helpers/client.ts";
import { deploy, FIXTURES, requestApp, uploadZip, waitFor, waitForDeployment, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: Client;
let counter = 0;
const newSlug = () => `live-${process.pid}-${++counter}`;
const host = (slug: string) => `${slug}.localhost`;
const nodeApp = (js: string) => ({ "package.json": JSON.stringify({ name: "t", version: "1.0.0" }), "server.js": js });

beforeAll(async () => {
  server = await startServer({ DEFAULT_MAX_APPS: "50", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

async function deployed(fixture: string | null, extra: Record<string, string> = {}): Promise<string> {
  const slug = newSlug();
  await owner.post("/api/apps", { slug });
  const d = await deploy(owner, slug, await zipFolder(fixture && path.join(FIXTURES, fixture), extra));
  expect(d, JSON.stringify(d)).toMatchObject({ status: "LIVE" });
  return slug;
}

describe("deployed apps through the router", () => {
  it("serves a Node app built with a dependency from its lockfile", async () => {
    const slug = await deployed("node-dep");
    const res = await requestApp(server.url, host(slug));
    expect(res.status).toBe(200);
    expect(res.body).toMatch(/hello/i);
    const build = (await owner.get(`/api/apps/${slug}/logs?kind=build&limit=1000`)).body.map((l: { line: string }) => l.line).join("\n");
    expect(build).toContain("$ npm ci");
    expect(build).toContain("$ npm run build");
    // The start script as package.json has it, not the shell that runs it.
    expect(build).toContain("$ node index.js");
    expect(build).not.toContain("/bin/sh -c");
  });

  it("serves a static site with its content type and ETag, and 304 when unchanged", async () => {
    const slug = await deployed("static");
    const res = await requestApp(server.url, host(slug));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.body).toContain("hello from static");
    const again = await requestApp(server.url, host(slug), "/", { headers: { "if-none-match": String(res.headers.etag) } });
    expect(again.status).toBe(304);
    expect((await requestApp(server.url, host(slug), "/missing.css")).status).toBe(404);
  });

  it("runs a Procfile app's release phase before it takes traffic", async () => {
    const slug = await deployed("procfile");
    const res = await requestApp(server.url, host(slug));
    expect(res.body).toMatch(/^hello from procfile \(released at \d{4}-/);
  });

  it("fails a deploy whose release phase fails, and the previous release keeps serving", async () => {
    const slug = await deployed(null, nodeApp(`require("http").createServer((q, s) => s.end("first")).listen(process.env.PORT);`));
    const res = await uploadZip(owner, slug, await zipFolder(null, { Procfile: "web: node server.js\nrelease: exit 4\n", "server.js": "" }));
    const failed = await waitForDeployment(owner, slug, res.body.id);
    expect(failed).toMatchObject({ status: "FAILED", error: expect.stringMatching(/release phase failed \(exit code 4\)/) });
    expect((await requestApp(server.url, host(slug))).body).toBe("first");
  });

  it("pipes WebSockets to the app", async () => {
    const slug = await deployed(null, {
      ...nodeApp(`
        const http = require("http");
        const server = http.createServer((q, s) => s.end("http"));
        server.on("upgrade", (req, socket) => {
          socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " +
            require("crypto").createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64") + "\\r\\n\\r\\n");
          socket.on("data", (frame) => {
            // Echo one small masked text frame back unmasked.
            const len = frame[1] & 0x7f, mask = frame.subarray(2, 6), data = Buffer.from(frame.subarray(6, 6 + len));
            for (let i = 0; i < data.length; i++) data[i] ^= mask[i % 4];
            socket.write(Buffer.concat([Buffer.from([0x81, data.length]), data]));
          });
        });
        server.listen(process.env.PORT);`),
    });
    const port = new URL(server.url).port;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/socket`, { headers: { host: `${host(slug)}:${port}` } });
    const echoed = await new Promise<string>((resolve, reject) => {
      ws.once("open", () => ws.send("ping through the router"));
      ws.once("message", (data) => resolve(String(data)));
      ws.once("error", reject);
    });
    ws.close();
    expect(echoed).toBe("ping through the router");
  });

  it("answers every request while the app is redeployed under continuous load", async () => {
    const serve = (v: string) => `require("http").createServer((q, s) => s.end(${JSON.stringify(v)})).listen(process.env.PORT);`;
    const slug = await deployed(null, nodeApp(serve("v0")));
    const port = new URL(server.url).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    let running = true;
    const outcomes = { ok: 0, failed: [] as string[], seen: new Set<string>() };
    const worker = async () => {
      while (running) {
        await new Promise<void>((resolve) => {
          const req = http.get({ host: "127.0.0.1", port, path: "/", agent, headers: { host: `${host(slug)}:${port}` } }, (res) => {
            let body = "";
            res.setEncoding("utf8").on("data", (c) => (body += c)).on("end", () => {
              if (res.statusCode === 200) {
                outcomes.ok += 1;
                outcomes.seen.add(body);
              } else outcomes.failed.push(`${res.statusCode} ${body.slice(0, 80)}`);
              resolve();
            });
          });
          req.on("error", (error) => {
            outcomes.failed.push(error.message);
            resolve();
          });
        });
      }
    };
    const workers = Array.from({ length: 10 }, worker);
    for (let i = 1; i <= 3; i++) expect((await deploy(owner, slug, await zipFolder(null, nodeApp(serve(`v${i}`))))).status).toBe("LIVE");
    // LIVE comes once the replaced instance has drained and stopped: the load goes on a while after it.
    const answeredThen = outcomes.ok;
    await waitFor(async () => outcomes.ok > answeredThen + 50, 10_000, "answers after the last deploy");
    running = false;
    await Promise.all(workers);
    agent.destroy();
    expect(outcomes.failed).toEqual([]);
    expect(outcomes.ok).toBeGreaterThan(100);
    expect([...outcomes.seen].sort()).toEqual(["v0", "v1", "v2", "v3"]);
  });
});
