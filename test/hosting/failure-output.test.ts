// A deployment whose release fails to start keeps the last 20 lines its process wrote (stdout and stderr, in order):
// Deployment.failureOutput over GraphQL and REST, and in its build log after the failure line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.ts";
import { deploy, zipFolder } from "../helpers/apps.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: Client;
let counter = 0;
const newSlug = () => `fail-${process.pid}-${++counter}`;
const nodeApp = (js: string) => ({ "package.json": JSON.stringify({ name: "t", version: "1.0.0" }), "server.js": js });

// 28 lines on stdout, then (once those are surely read) 2 on stderr, then exit 1 without listening.
const CRASHES_AT_START = `
for (let i = 1; i <= 28; i++) console.log("line " + i + " secret-value-123");
setTimeout(() => { console.error("line 29"); process.stderr.write("line 30 (no newline)"); process.exit(1); }, 300);
`;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  owner = new Client(server.url);
  await owner.signup();
});
afterAll(() => server.close());

async function newApp(): Promise<string> {
  const slug = newSlug();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  return slug;
}

describe("a release that fails to start", () => {
  it("keeps its last 20 output lines, redacted, on the deployment (GraphQL and REST) and in its build log", async () => {
    const slug = await newApp();
    expect((await owner.post(`/api/apps/${slug}/env`, { TOKEN: "secret-value-123" })).status).toBe(200);
    const failed = await deploy(owner, slug, await zipFolder(null, nodeApp(CRASHES_AT_START)));
    expect(failed.status).toBe("FAILED");
    expect(failed.error).toMatch(/exited \(exit code 1\) before accepting connections on its PORT/);
    const expected = [...Array.from({ length: 18 }, (_, i) => `line ${i + 11} [redacted]`), "line 29", "line 30 (no newline)"];
    expect(failed.failureOutput).toEqual(expected);

    const gql = await owner.graphql(`query($slug: String!) { app(slug: $slug) { deployments { id failureOutput } } }`, { slug });
    expect(gql.body.data.app.deployments).toEqual([{ id: failed.id, failureOutput: expected }]);

    const log = await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${failed.id}&limit=1000`);
    const lines: { stream: string; line: string }[] = log.body;
    const at = lines.findIndex((l) => l.line.startsWith("Failed: "));
    expect(at).toBeGreaterThan(-1);
    expect(lines.slice(at + 1).map((l) => [l.stream, l.line])).toEqual([
      ["system", "The app's last output before it stopped:"],
      ...expected.map((line) => [line.startsWith("line 29") || line.startsWith("line 30") ? "stderr" : "stdout", line]),
    ]);
  });

  it("has none when it goes live, or when it fails before starting", async () => {
    const slug = await newApp();
    const live = await deploy(owner, slug, await zipFolder(null, nodeApp(`require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`)));
    expect([live.status, live.failureOutput]).toEqual(["LIVE", null]);
    const broken = await deploy(owner, slug, await zipFolder(null, { "package.json": "{ not json" }));
    expect([broken.status, broken.failureOutput]).toEqual(["FAILED", null]);
  });

  it("says so when the process wrote nothing", async () => {
    const slug = await newApp();
    const failed = await deploy(owner, slug, await zipFolder(null, nodeApp("process.exit(3)")));
    expect([failed.status, failed.failureOutput]).toEqual(["FAILED", null]);
    const log = await owner.get(`/api/apps/${slug}/logs?kind=build&deployment=${failed.id}&limit=1000`);
    expect(log.body.map((l: { line: string }) => l.line).slice(-2)).toEqual([expect.stringMatching(/^Failed: .*exit code 3/), "The app wrote nothing before it stopped."]);
  });
});
