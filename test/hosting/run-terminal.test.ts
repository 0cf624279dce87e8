// Interactive runs: a run that waits for its terminal, attached over the WebSocket with the API's credentials, runs
// on a pty inside the app's sandbox: typed input reaches it, a resize changes its window size, Ctrl-C interrupts it,
// and its exit ends the socket with the run's outcome. The wait for a terminal is timed on an injected clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client } from "../helpers/client.ts";
import { deploy, waitFor, zipFolder } from "../helpers/apps.ts";
import { FakeClock } from "../helpers/fake-clock.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { bearer, issueTokens, registerClient } from "../oauth/helpers.ts";

let server: TestServer;
let owner: Client;
const slug = `tty-${process.pid}`;
const clock = new FakeClock(Date.parse("2031-01-01T00:00:30Z"));

interface Exit {
  type: "exit";
  status: string;
  exitCode: number | null;
  error: string | null;
}

/** An attached terminal: its output so far, a way to type and resize, and how it ended. */
function attach(path: string, headers: Record<string, string>) {
  const ws = new WebSocket(server.url.replace(/^http/, "ws") + path, { headers });
  let output = "";
  let exit: Exit | null = null;
  let closed: { code: number; reason: string } | null = null;
  ws.on("message", (data, isBinary) => {
    if (isBinary) output += data.toString();
    else exit = JSON.parse(data.toString());
  });
  ws.on("close", (code, reason) => (closed = { code, reason: reason.toString() }));
  const opened = new Promise<void>((resolve, reject) => ws.once("open", () => resolve()).once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`))));
  return {
    opened,
    output: () => output,
    exit: () => exit,
    closed: () => closed,
    type: (text: string) => ws.send(Buffer.from(text), { binary: true }),
    resize: (cols: number, rows: number) => ws.send(JSON.stringify({ type: "resize", cols, rows })),
    close: () => ws.close(),
  };
}

/** The HTTP status that refuses a handshake. */
function refusal(path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(server.url.replace(/^http/, "ws") + path, { headers });
    ws.once("unexpected-response", (_req, res) => resolve(res.statusCode!));
    ws.once("open", () => resolve(101));
    ws.once("error", () => {});
  });
}

async function interactiveRun(command: string, size: { cols?: number; rows?: number } = {}) {
  const res = await owner.post(`/api/apps/${slug}/runs`, { command, interactive: true, ...size });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { id: string; status: string; attachUrl: string };
}

const cookie = () => ({ cookie: owner.cookie!, origin: server.url });

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", DEFAULT_MAX_INSTANCES: "20" }, { clock });
  owner = new Client(server.url);
  await owner.signup();
  expect((await owner.post("/api/apps", { slug })).status).toBe(201);
  const app = { "package.json": JSON.stringify({ name: "t", version: "1.0.0" }), "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);` };
  expect((await deploy(owner, slug, await zipFolder(null, app))).status).toBe("LIVE");
}, 120_000);
afterAll(() => server?.close());

describe("interactive runs", () => {
  it("wait for their terminal, then read what is typed on a pty of the asked size inside the sandbox", async () => {
    const run = await interactiveRun(`read name; echo "hello $name"; stty size; tty; id -u`, { cols: 100, rows: 40 });
    expect(run.status).toBe("QUEUED");
    expect(run.attachUrl).toBe(`/api/runs/${run.id}/attach`);
    const terminal = attach(run.attachUrl, cookie());
    await terminal.opened;
    terminal.type("world\r");
    const exit = await waitFor(async () => terminal.exit(), 15_000, "the run's exit");
    expect(exit).toEqual({ type: "exit", status: "SUCCEEDED", exitCode: 0, error: null });
    const lines = terminal.output().split(/\r?\n/);
    expect(lines).toContain("hello world");
    expect(lines).toContain("40 100");
    expect(lines).toContain("/dev/pts/0");
    expect(Number(lines[lines.indexOf("/dev/pts/0") + 1])).toBeGreaterThan(0); // the app's uid, never root
    await waitFor(async () => terminal.closed(), 5000, "the socket closed");
    expect(terminal.closed()!.code).toBe(1000);
    // The output is the run's log too, and the run no longer waits.
    const log = (await owner.get(`/api/apps/${slug}/logs?kind=run&run=${run.id}`)).body as { line: string; process: string | null }[];
    expect(log).toContainEqual(expect.objectContaining({ line: "hello world", process: `run.${run.id}` }));
    expect((await owner.get(`/api/apps/${slug}/runs/${run.id}`)).body).toMatchObject({ status: "SUCCEEDED", attachUrl: null });
  });

  it("passes a resize on as the pty's new size, and Ctrl-C as an interrupt", async () => {
    const resized = attach((await interactiveRun("read x; stty size")).attachUrl, cookie());
    await resized.opened;
    resized.resize(90, 30);
    resized.type("\r");
    await waitFor(async () => resized.exit(), 15_000, "the resized run's exit");
    expect(resized.output().split(/\r?\n/)).toContain("30 90");

    const interrupted = attach((await interactiveRun("echo ready; sleep 300")).attachUrl, cookie());
    await interrupted.opened;
    await waitFor(async () => interrupted.output().includes("ready"), 10_000, "the command to start");
    interrupted.type("\x03");
    const ended = await waitFor(async () => interrupted.exit(), 10_000, "the interrupted run's exit");
    // An interrupted command has no exit code of its own: the run says which signal ended it.
    expect(ended).toEqual({ type: "exit", status: "FAILED", exitCode: null, error: "It ended without an exit code (signal SIGINT)." });
  });

  it("cancels a command that outlives its terminal's hang-up by more than 5 s", async () => {
    const run = await interactiveRun("trap '' HUP; echo ready; sleep 300");
    const terminal = attach(run.attachUrl, cookie());
    await terminal.opened;
    await waitFor(async () => terminal.output().includes("ready"), 10_000, "the command to start");
    terminal.close();
    // It ignores SIGHUP: once the grace is over on the injected clock, it is canceled with its process tree.
    const canceled = await waitFor(async () => {
      await clock.advanceTo(clock.now() + 5000);
      const now = (await owner.get(`/api/apps/${slug}/runs/${run.id}`)).body;
      return now.status !== "RUNNING" && now;
    }, 10_000, "the run to end");
    expect(canceled.status).toBe("CANCELED");
  });

  it("admits only the run's owner with write:apps, once, and only a run that waits for a terminal", async () => {
    const run = await interactiveRun("echo hi");
    expect(await refusal(run.attachUrl)).toBe(401);
    const stranger = new Client(server.url);
    await stranger.signup();
    expect(await refusal(run.attachUrl, { cookie: stranger.cookie! })).toBe(404);
    expect(await refusal(run.attachUrl, { cookie: owner.cookie!, origin: "https://evil.example" })).toBe(403);
    const readOnly = (await issueTokens(server, owner, await registerClient(owner), "read:apps")).access_token;
    expect(await refusal(run.attachUrl, { authorization: `Bearer ${readOnly}` })).toBe(403);
    const plain = await owner.post(`/api/apps/${slug}/runs`, { command: "echo plain" });
    expect(plain.body.attachUrl).toBeNull();
    expect(await refusal(`/api/runs/${plain.body.id}/attach`, cookie())).toBe(409);
    expect(await refusal("/api/runs/nope/attach", cookie())).toBe(404);
    const token = (await issueTokens(server, owner, await registerClient(owner), "write:apps")).access_token;
    const terminal = attach(run.attachUrl, { authorization: `Bearer ${token}` });
    await terminal.opened;
    await waitFor(async () => terminal.exit(), 10_000, "the run's exit");
    expect(await refusal(run.attachUrl, cookie())).toBe(409);
    void bearer;
  });

  it("fails a run no terminal attached to within 60 s, saying so", async () => {
    const run = await interactiveRun("echo never");
    await clock.advanceTo(clock.now() + 60_000);
    const failed = await waitFor(async () => {
      const now = (await owner.get(`/api/apps/${slug}/runs/${run.id}`)).body;
      return now.status === "FAILED" && now;
    }, 5000, "the run to fail");
    expect(failed.error).toMatch(/^No terminal attached within 60 s/);
    expect(await refusal(run.attachUrl, cookie())).toBe(409);
  });

  it("refuses bad terminal sizes with 400 naming the field", async () => {
    const res = await owner.post(`/api/apps/${slug}/runs`, { command: "echo", interactive: true, cols: 0, rows: 5000 });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details.fields).sort()).toEqual(["cols", "rows"]);
  });
});
