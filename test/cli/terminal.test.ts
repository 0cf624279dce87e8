// The CLI as a person sees it: run in a real terminal (tmux), the screen read back with capture-pane. The
// login prompt shows the address, the code and a spinner; a deploy shows the upload progress bar with bytes,
// rate and ETA, then the build log and the URL; cdn:upload the same bar and the file's URL; quota:request asks
// for the reason.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { BIN, cliHome, decideDevice, type CliHome } from "./helpers.ts";

const SOCKET = `slipway-cli-test-${process.pid}`;
const SESSION = "cli";
const tmux = (...args: string[]) => execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", SESSION);
const type = (line: string) => {
  tmux("send-keys", "-t", SESSION, "-l", line);
  tmux("send-keys", "-t", SESSION, "Enter");
};

let server: TestServer;
let user: Client;
let home: CliHome;

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000", DEFAULT_MAX_UPLOAD_BYTES: String(64 * 1024 * 1024) });
  user = new Client(server.url);
  await user.signup();
  home = cliHome();
  // A shell in a 120x40 terminal, with the CLI's own HOME; colours on (a TTY, no NO_COLOR).
  tmux("new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40", "env", `HOME=${home.home}`, `XDG_CONFIG_HOME=${home.configDir}`, `PATH=${process.env.PATH}`, "TERM=xterm-256color", "PS1=$ ", "sh");
  type(`cd ${home.cwd}`);
});
afterAll(async () => {
  try {
    tmux("kill-server");
  } catch {
    // already gone
  }
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

const until = (pattern: RegExp, what: string, timeoutMs = 30_000) => waitFor(async () => screen().match(pattern), timeoutMs, `${what} on screen:\n${screen()}`);

describe("in a terminal", () => {
  it("login shows the address, the code and a spinner, then who is logged in", async () => {
    type(`node ${BIN} login --server ${server.url} --no-browser`);
    const [, code] = await until(/enter the code: ([A-Z]{4}-[A-Z]{4})/, "the code");
    const shown = screen();
    expect(shown).toContain(`To log in to ${server.url}, visit:`);
    expect(shown).toContain(`  ${server.url}/oauth/device`);
    await until(/Waiting for you to approve in the browser/, "the spinner");
    // On a terminal (and no NO_COLOR) the code is in bold and the address in cyan.
    const colours = tmux("capture-pane", "-p", "-e", "-t", SESSION);
    expect(colours).toContain(`\x1b[1m${code}`);
    expect(colours).toMatch(new RegExp(`\x1b\\[36m\\s*${server.url.replace(/[.]/g, "\\.")}/oauth/device`));
    await decideDevice(user, code);
    await until(/Logged in as \S+ <[^>]+>/, "the outcome", 20_000);
  });

  it("deploy draws the upload progress bar (bytes, rate, ETA), then the build log and the URL", async () => {
    const dir = path.join(home.cwd, "site");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "index.html"), "<h1>hello</h1>");
    fs.writeFileSync(path.join(dir, "noise.bin"), crypto.randomBytes(8 * 1024 * 1024)); // incompressible: 8 MB on the wire
    type(`cd ${dir} && node ${BIN} apps:create term-${process.pid} && node ${BIN} deploy`);
    await until(/is live at http/, "the outcome", 60_000);
    const shown = screen();
    if (process.env.SHOW_SCREEN) console.log(shown);
    expect(shown).toMatch(/Packed 2 files from .* \(8\.0 MB\)\./);
    expect(shown).toMatch(/Uploading \[█{10,}\] 100% \| 8\.0 MB\/8\.0 MB \| [\d.]+ [KMG]?B\/s \| ETA \d+s/);
    expect(shown).toContain("-----> Building");
    expect(shown).toMatch(new RegExp(`✔ term-${process.pid} is live at http://term-${process.pid}\\.`));
  });

  it("cdn:upload draws the same progress bar, then prints the file's URL", async () => {
    const file = path.join(home.home, "video.bin");
    const bytes = crypto.randomBytes(8 * 1024 * 1024);
    fs.writeFileSync(file, bytes);
    type(`clear && node ${BIN} cdn:upload ${file}`);
    const [url] = await until(new RegExp(`^${server.url.replace(/[.]/g, "\\.")}/api/cdn/\\w+$`, "m"), "the URL", 60_000);
    const shown = screen();
    expect(shown).toMatch(/Uploading \[█{10,}\] 100% \| 8\.0 MB\/8\.0 MB \| [\d.]+ [KMG]?B\/s \| ETA \d+s/);
    expect(shown).toMatch(/Uploaded video\.bin \(8\.0 MB, application\/octet-stream\) as \w+\./);
    const res = await fetch(url);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("quota:request asks for the reason when --reason is missing", async () => {
    type(`clear && node ${BIN} quota:request --apps 9`);
    await until(/Why do you need higher limits\?/, "the question");
    type("launch week");
    const [, id] = await until(/Requested 9 apps \(request (\w+), PENDING\)\./, "the request", 20_000);
    const mine = await user.get("/api/quota/requests");
    expect(mine.body).toMatchObject([{ id, reason: "launch week", status: "PENDING", limits: { maxApps: 9 } }]);
  });

  it("run attaches a terminal: typed input reaches the command on a pty of this size, Ctrl-C interrupts it", async () => {
    type(`clear && node ${BIN} run 'printf "name? "; read -r name; echo "hi $name"; stty size'`);
    await until(/name\? $/m, "the command's prompt", 30_000);
    type("tmux");
    await until(/^hi tmux$/m, "the answer", 20_000);
    await until(/^40 120$/m, "the terminal's size");
    type(`echo "exit=$?"`);
    await until(/^exit=0$/m, "its exit status");
    type(`clear && node ${BIN} run 'echo ready; sleep 300'`);
    await until(/^ready$/m, "the command to start", 30_000);
    tmux("send-keys", "-t", SESSION, "C-c");
    await until(/Run \w+ FAILED: It ended without an exit code \(signal SIGINT\)\./, "the interrupted run", 20_000);
    type(`echo "exit=$?"`);
    await until(/^exit=130$/m, "the shell's status for an interrupt");
  });

  it("apps:delete asks to type the slug, and a wrong answer deletes nothing", async () => {
    const slug = `term-${process.pid}`;
    type(`node ${BIN} apps:delete ${slug}`);
    await until(/Type the slug to confirm/, "the question");
    type("wrong");
    await until(/Error: Not deleted: the slug did not match\./, "the refusal", 20_000);
    expect((await user.get(`/api/apps/${slug}`)).status).toBe(200);
    type(`node ${BIN} apps:delete ${slug}`);
    await waitFor(async () => screen().split("Type the slug to confirm").length === 3, 30_000, "the second question");
    type(slug);
    await until(new RegExp(`Deleted ${slug}\\.`), "the deletion", 20_000);
    expect((await user.get(`/api/apps/${slug}`)).status).toBe(404);
  });
});
