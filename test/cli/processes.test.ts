// `slipway ps` and `ps:scale type=N` as child processes against a real server running a Node app whose Procfile
// has web and worker (real sandboxed processes): ps lists each type's instances under its heading, ps:scale
// worker=2 starts worker.2 and worker=0 stops them; a type the release lacks exits 1 with the server's reason,
// and a malformed argument exits 1 before any request.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploy, waitFor, zipFolder } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { cliHome, login, runCli, type CliHome } from "./helpers.ts";

let server: TestServer;
let user: Client;
let home: CliHome;
const slug = `cli-procs-${process.pid}`;

const files = {
  "package.json": JSON.stringify({ name: "procs", version: "1.0.0" }),
  Procfile: "web: node server.js\nworker: node worker.js\n",
  "server.js": `require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);`,
  "worker.js": `console.log("worker up"); setInterval(() => {}, 1000);`,
};

beforeAll(async () => {
  server = await startServer({ DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  user = new Client(server.url);
  await user.signup();
  home = cliHome();
  await login(home, server.url, user);
  expect((await user.post("/api/apps", { slug })).status).toBe(201);
  expect((await deploy(user, slug, await zipFolder(null, files))).status).toBe("LIVE");
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

const ps = async () => (await runCli(home, ["ps", "--app", slug])).stdout;

/** The section `ps` prints for one type: its heading and the lines up to the next heading. */
function section(output: string, type: string): string | null {
  const match = new RegExp(`^=== ${type} \\(\\d+\\): .*$(?:\\n(?!===).*)*`, "m").exec(output);
  return match ? match[0].trimEnd() : null;
}

/** Waits until the worker section's instance lines are exactly `names`, each running. */
async function workersRunning(names: string[]): Promise<string> {
  return waitFor(
    async () => {
      const worker = section(await ps(), "worker");
      const rows = worker?.split("\n").filter((line) => /^worker\.\d+\s/.test(line)) ?? [];
      const running = rows.length === names.length && names.every((name, i) => new RegExp(`^${name.replace(".", "\\.")}\\s+running\\s`).test(rows[i]));
      return running && worker;
    },
    30_000,
    `worker instances ${names.join(", ") || "none"} running`,
  );
}

describe("slipway ps with process types", () => {
  it("lists web and worker, each under its heading with its command", async () => {
    const worker = await workersRunning(["worker.1"]);
    expect(worker).toMatch(/^=== worker \(1\): node worker\.js\nINSTANCE\s+STATE\s+UPTIME\s+RESTARTS\nworker\.1\s+running\s+\S+\s+0$/);
    const output = await ps();
    expect(output).toMatch(/^APP\s+STATUS\s+RELEASE\s+INSTANCES\s+RESTARTS\s+UPTIME\n/);
    expect(section(output, "web")).toMatch(/^=== web \(1\): node server\.js\n[\s\S]*web\.1\s+(healthy|starting)/);
    expect(output.indexOf("=== web")).toBeLessThan(output.indexOf("=== worker"));
  });

  it("--json has the processes by type", async () => {
    const app = JSON.parse((await runCli(home, ["ps", "--app", slug, "--json"])).stdout);
    expect(app.processes).toEqual([
      expect.objectContaining({ type: "web", command: "node server.js", quantity: 1, instances: [expect.objectContaining({ index: 1, name: "web.1" })] }),
      expect.objectContaining({ type: "worker", command: "node worker.js", quantity: 1, instances: [expect.objectContaining({ index: 1, name: "worker.1" })] }),
    ]);
  });
});

describe("slipway ps:scale type=N", () => {
  it("worker=2 starts worker.2; worker=0 stops both", async () => {
    const up = await runCli(home, ["ps:scale", "worker=2", "--app", slug]);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toBe(`Scaling ${slug}: worker 2; \`slipway ps\` shows them start.\n`);
    await workersRunning(["worker.1", "worker.2"]);

    const down = await runCli(home, ["ps:scale", "worker=0", "--app", slug]);
    expect(down.code, down.stderr).toBe(0);
    const worker = await workersRunning([]);
    expect(worker).toBe("=== worker (0): node worker.js");
  });

  it("a type the live release does not run exits 1 naming it", async () => {
    const result = await runCli(home, ["ps:scale", "nope=1", "--app", slug]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no process type "nope"');
    expect(result.stderr).toContain("web, worker");
  });

  it("a malformed argument exits 1 before any request", async () => {
    // Against an unreachable server: an answer about the argument, not the connection, shows nothing was sent.
    const unreachable = "http://127.0.0.1:9";
    for (const [arg, problem] of [
      ["worker=x", 'worker=x: "x" is not a whole number of instances'],
      ["worker=-1", 'worker=-1: "-1" is not a whole number of instances'],
      ["=2", '"=2" is not TYPE=N'],
    ]) {
      const result = await runCli(home, ["ps:scale", arg, "--app", slug, "--server", unreachable]);
      expect(result.code, arg).toBe(1);
      expect(result.stderr, arg).toContain(problem);
    }
  });
});
