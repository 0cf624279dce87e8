// `slipway apps/deploy/logs/env/ps/stop/restart` as child processes against a real server that builds and runs
// the apps (sandboxed): a deploy streams its build log and exits 0 once live, a failing one exits 1, `logs -f`
// sees a new line arrive, and the listing commands' --json parses.
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestApp, waitFor, webInstances } from "../helpers/apps.ts";
import { Client } from "../helpers/client.ts";
import { GitHubDouble } from "../helpers/git.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { cliHome, login, readStoredCredentials, runCli, startCli, type CliHome } from "./helpers.ts";

/** A TCP proxy to the server that a test can cut (every connection dropped, new ones refused) and restore. */
async function cuttableProxy(target: string) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s)).on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const proxyPort = (listener.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    async cut() {
      await new Promise<void>((resolve) => {
        listener.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    restore: () => new Promise<void>((resolve) => listener.listen(proxyPort, "127.0.0.1", resolve)),
    close: () => new Promise<void>((resolve) => (listener.listening ? listener.close(() => resolve()) : resolve())),
  };
}

let server: TestServer;
let user: Client;
let home: CliHome;
let counter = 0;
const github = new GitHubDouble();
const newSlug = () => `cli-${process.pid}-${++counter}`;

beforeAll(async () => {
  server = await startServer({ GITHUB_URL: github.fileUrl, DEFAULT_MAX_APPS: "20", DEFAULT_REQUESTS_PER_MINUTE: "100000" });
  user = new Client(server.url);
  await user.signup();
  home = cliHome();
  await login(home, server.url, user);
});
afterAll(async () => {
  await server?.close();
  if (home) fs.rmSync(home.home, { recursive: true, force: true });
});

/** A project folder with the given files. */
function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(home.home, "app-"));
  for (const [name, contents] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), contents);
  }
  return dir;
}

const APP_JS = `
const fs = require("fs");
require("http").createServer((req, res) => {
  console.log("request " + req.url);
  const present = ["secret.txt", "build.log", "node_modules/junk/index.js", "kept.txt"].filter((f) => fs.existsSync(f));
  res.end(JSON.stringify({ present, greeting: process.env.GREETING ?? null }));
}).listen(process.env.PORT, () => console.log("listening"));
`;

describe("apps", () => {
  it("apps:create creates the app and links the folder; apps and apps:info answer JSON", async () => {
    const slug = newSlug();
    const dir = project({});
    const created = await runCli(home, ["apps:create", slug], { cwd: dir });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`Created ${slug}`);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "slipway.json"), "utf8"))).toEqual({ app: slug });

    const list = await runCli(home, ["apps", "--json"]);
    expect(JSON.parse(list.stdout).map((a: { slug: string }) => a.slug)).toContain(slug);
    const info = await runCli(home, ["apps:info", "--json"], { cwd: dir });
    expect(JSON.parse(info.stdout)).toMatchObject({ slug, status: "CREATED", deployments: [] });
    const table = await runCli(home, ["apps"]);
    expect(table.stdout).toMatch(new RegExp(`${slug}\\s+CREATED`));
  });

  it("healthcheck shows the check in force; healthcheck:set and :unset change the app's own, refusing a bad one", async () => {
    const slug = newSlug();
    const dir = project({});
    expect((await runCli(home, ["apps:create", slug], { cwd: dir })).code).toBe(0);
    const shown = await runCli(home, ["healthcheck"], { cwd: dir });
    expect(shown.stdout).toContain(`${slug}: TCP connect to PORT every 5s, timeout 2s, from Slipway's default`);
    const set = await runCli(home, ["healthcheck:set", "--path", "/healthz", "--interval", "10"], { cwd: dir });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain("GET /healthz (2xx or 3xx passes) every 10s, timeout 2s, from the app's setting");
    const info = await runCli(home, ["apps:info"], { cwd: dir });
    expect(info.stdout).toMatch(/Health: +GET \/healthz .* from the app's setting/);
    const bad = await runCli(home, ["healthcheck:set", "--path", "healthz"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Error: .*starts with "\/"/m);
    expect((await runCli(home, ["healthcheck:set", "--interval", "0"], { cwd: dir })).stderr).toContain("--interval takes a whole number of seconds");
    const unset = await runCli(home, ["healthcheck:unset", "--json"], { cwd: dir });
    expect(JSON.parse(unset.stdout).effectiveHealthcheck).toMatchObject({ path: null, source: "DEFAULT" });
  });

  it("refuses a taken slug with the server's message, and an unknown app with not found", async () => {
    const slug = newSlug();
    expect((await runCli(home, ["apps:create", slug, "--no-link"])).code).toBe(0);
    const again = await runCli(home, ["apps:create", slug, "--no-link"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^Error: .*taken|^Error: .*exists|^Error: .*already/im);
    const missing = await runCli(home, ["apps:info", "--app", "no-such-app-here"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: /);
  });

  it("link writes slipway.json for an existing app (found from subfolders too), and refuses an unknown one", async () => {
    const slug = newSlug();
    expect((await runCli(home, ["apps:create", slug, "--no-link"])).code).toBe(0);
    const dir = project({ "src/index.js": "" });
    const linked = await runCli(home, ["link", slug], { cwd: dir });
    expect(linked.code, linked.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "slipway.json"), "utf8"))).toEqual({ app: slug });
    const info = await runCli(home, ["apps:info", "--json"], { cwd: path.join(dir, "src") });
    expect(JSON.parse(info.stdout).slug).toBe(slug);
    const unknown = await runCli(home, ["link", "not-an-app-of-mine"], { cwd: project({}) });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: /);
  });

  it("apps:delete asks for the slug (refuses without a terminal) and deletes with --yes", async () => {
    const slug = newSlug();
    expect((await runCli(home, ["apps:create", slug, "--no-link"])).code).toBe(0);
    const refused = await runCli(home, ["apps:delete", slug]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--yes");
    const deleted = await runCli(home, ["apps:delete", slug, "--yes"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await user.get(`/api/apps/${slug}`)).status).toBe(404);
  });

  it("a command without an app and without slipway.json says how to name one", async () => {
    const result = await runCli(home, ["env"], { cwd: project({}) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--app <slug>");
  });
});

describe("deploy", () => {
  let slug: string;
  let dir: string;

  it("zips the folder without ignored files, streams the build log and exits 0 with the URL once live", async () => {
    slug = newSlug();
    dir = project({
      "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
      "server.js": APP_JS,
      "secret.txt": "not for upload",
      "build.log": "ignored by .gitignore",
      "kept.txt": "uploaded",
      ".gitignore": "*.log\n",
      ".slipwayignore": "secret.txt\n",
      "node_modules/junk/index.js": "module.exports = 1;",
    });
    expect((await runCli(home, ["apps:create", slug], { cwd: dir })).code).toBe(0);
    const result = await runCli(home, ["deploy"], { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Packed 5 files/); // package.json server.js kept.txt .gitignore .slipwayignore
    expect(result.stdout).toContain("-----> Building");
    expect(result.stdout).toContain("-----> Sending traffic to the new release");
    expect(result.stdout).toMatch(new RegExp(`${slug} is live at http`));
    const answer = await requestApp(server.url, `${slug}.localhost`);
    expect(JSON.parse(answer.body)).toEqual({ present: ["kept.txt"], greeting: null });
  });

  it("logs prints recent lines (JSON lines with --json), and -f sees a new line arrive", async () => {
    await waitFor(async () => (await runCli(home, ["logs", "--app", slug])).stdout.includes("listening"), 20_000, "runtime log");
    const json = await runCli(home, ["logs", "--app", slug, "--json", "-n", "5"]);
    const lines = json.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ stream: "stdout", timestamp: expect.any(String) });
    const build = await runCli(home, ["logs", "--build", "--app", slug, "-n", "1000"]);
    expect(build.stdout).toContain("-----> Building");

    const follow = startCli(home, ["logs", "-f", "--app", slug, "-n", "1"]);
    await follow.waitFor(/listening|request/);
    const marker = `/marker-${Date.now()}`;
    // The subscription may still be starting: ask until the line shows up.
    await waitFor(async () => {
      await requestApp(server.url, `${slug}.localhost`, marker);
      return follow.stdout().includes(`request ${marker}`);
    }, 20_000, "the followed line");
    const count = follow.stdout().split(`request ${marker}`).length - 1;
    follow.child.kill("SIGINT");
    const done = await follow.exited;
    expect(done.code).toBe(0);
    // Every line once: as many printed as requests answered (one per poll above at most, never duplicated).
    const timestamps = done.stdout.trim().split("\n").map((l) => l.split(" ")[0]);
    expect(new Set(timestamps).size).toBe(timestamps.length);
    expect(count).toBeGreaterThanOrEqual(1);
  });

  it("logs -f reconnects after the connection drops, printing the lines written meanwhile exactly once", async () => {
    const proxy = await cuttableProxy(server.url);
    try {
      const follow = startCli(cliHome(), ["logs", "-f", "--app", slug, "-n", "1"], {
        env: { SLIPWAY_TOKEN: readStoredCredentials(home).accessToken, SLIPWAY_SERVER: proxy.url },
      });
      await follow.waitFor(/listening|request/);
      const hit = (name: string) => requestApp(server.url, `${slug}.localhost`, `/${name}`);
      await waitFor(async () => (await hit("before"), follow.stdout().includes("request /before")), 20_000, "the first line");
      await proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const name of ["during-1", "during-2", "during-3"]) await hit(name);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(follow.stdout()).not.toContain("request /during-1");
      await proxy.restore();
      await follow.waitFor(/request \/during-3/, 20_000);
      await hit("after");
      await follow.waitFor(/request \/after/, 20_000);
      follow.child.kill("SIGINT");
      const done = await follow.exited;
      expect(done.stderr).toContain("log stream interrupted");
      for (const name of ["during-1", "during-2", "during-3", "after"]) {
        expect(done.stdout.split(`request /${name}\n`).length - 1, name).toBe(1);
      }
      expect(done.stdout.indexOf("request /during-1")).toBeLessThan(done.stdout.indexOf("request /during-3"));
    } finally {
      await proxy.close();
    }
  });

  it("logs --build -f follows the build log; for an app that is gone it fails at once with the server's message", async () => {
    const gone = newSlug();
    const dir2 = project({ "index.html": "<h1>hi</h1>" });
    expect((await runCli(home, ["apps:create", gone], { cwd: dir2 })).code).toBe(0);
    expect((await runCli(home, ["deploy"], { cwd: dir2 })).code).toBe(0);
    const follow = startCli(home, ["logs", "-f", "--build"], { cwd: dir2 });
    await follow.waitFor(/Sending traffic/);
    expect((await runCli(home, ["apps:delete", gone, "--yes"])).code).toBe(0);
    const again = await runCli(home, ["logs", "-f"], { cwd: dir2 });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^Error: /m);
    follow.child.kill("SIGINT");
    await follow.exited;
  });

  it("env:set (KEY=VALUE and KEY=@file), env --json and env:unset; the app restarts with them", async () => {
    fs.writeFileSync(path.join(dir, "greeting.txt"), "hello from a file");
    const set = await runCli(home, ["env:set", "GREETING=@greeting.txt", "OTHER=1=2"], { cwd: dir });
    expect(set.code, set.stderr).toBe(0);
    const listed = await runCli(home, ["env", "--json"], { cwd: dir });
    expect(JSON.parse(listed.stdout)).toEqual({ GREETING: "hello from a file", OTHER: "1=2" });
    await waitFor(async () => JSON.parse((await requestApp(server.url, `${slug}.localhost`)).body || "{}").greeting === "hello from a file", 30_000, "restart with env");
    const unset = await runCli(home, ["env:unset", "OTHER", "NEVER_SET"], { cwd: dir });
    expect(unset.stdout).toContain("Removed OTHER");
    expect(unset.stdout).toContain("Not set on");
    expect((await runCli(home, ["env"], { cwd: dir })).stdout.trim()).toBe("GREETING=hello from a file");
    const bad = await runCli(home, ["env:set", "NOEQUALS"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"NOEQUALS" is not KEY=VALUE');
    const missingFile = await runCli(home, ["env:set", "X=@nope.txt"], { cwd: dir });
    expect(missingFile.code).toBe(1);
    expect(missingFile.stderr).toContain("Cannot read nope.txt");
  });

  it("ps answers JSON and names the live release's builder (so does apps:info); stop stops the app and restart brings it back", async () => {
    await waitFor(async () => JSON.parse((await runCli(home, ["ps", "--json"], { cwd: dir })).stdout).status === "RUNNING", 30_000, "running");
    const ps = JSON.parse((await runCli(home, ["ps", "--json"], { cwd: dir })).stdout);
    expect(ps).toMatchObject({ slug, status: "RUNNING", restarts: 0, liveDeployment: { id: expect.any(String), builder: "node", source: "zip" }, uptimeSeconds: expect.any(Number) });
    expect((await runCli(home, ["ps"], { cwd: dir })).stdout).toContain(`${ps.liveDeployment.id} (node, zip)`);
    const info = await runCli(home, ["apps:info"], { cwd: dir });
    expect(info.stdout).toMatch(/DEPLOYMENT\s+STATUS\s+SOURCE\s+BUILDER/);
    expect(info.stdout).toMatch(new RegExp(`${ps.liveDeployment.id}\\s+LIVE\\s+zip\\s+node`));
    const stopped = await runCli(home, ["stop"], { cwd: dir });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse((await runCli(home, ["ps", "--json"], { cwd: dir })).stdout).status).toBe("STOPPED");
    const restarted = await runCli(home, ["restart"], { cwd: dir });
    expect(restarted.code, restarted.stderr).toBe(0);
    await waitFor(async () => JSON.parse((await runCli(home, ["ps", "--json"], { cwd: dir })).stdout).status === "RUNNING", 30_000, "running again");
  });

  it("ps:scale runs more instances, ps lists them; a bad count or one past the quota exits 1 saying why", async () => {
    const scaled = await runCli(home, ["ps:scale", "2"], { cwd: dir });
    expect(scaled.code, scaled.stderr).toBe(0);
    expect(scaled.stdout).toContain(`Scaling ${slug}: web 2;`);
    await waitFor(async () => {
      const ps = JSON.parse((await runCli(home, ["ps", "--json"], { cwd: dir })).stdout);
      const web = webInstances(ps);
      return web.length === 2 && web.every((p) => p.state === "HEALTHY");
    }, 30_000, "2 healthy instances");
    expect((await runCli(home, ["ps"], { cwd: dir })).stdout).toMatch(/=== web \(2\): [^\n]+\n[\s\S]*web\.1\s+healthy[\s\S]*web\.2\s+healthy/);
    const bad = await runCli(home, ["ps:scale", "two"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"two" is not a whole number of instances');
    const over = await runCli(home, ["ps:scale", "web=50"], { cwd: dir });
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/runs 50 instances of \S+: past your maxInstances of \d+/);
    const none = await runCli(home, ["ps:scale", "web=0"], { cwd: dir });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("stop the app");
    expect((await runCli(home, ["ps:scale", "1"], { cwd: dir })).code).toBe(0);
  });

  it("a failing build streams its log and exits 1 with the reason", async () => {
    const failing = newSlug();
    const broken = project({ "README.md": "no app here" });
    expect((await runCli(home, ["apps:create", failing], { cwd: broken })).code).toBe(0);
    const result = await runCli(home, ["deploy"], { cwd: broken });
    expect(result.code).toBe(1);
    // The server's reason: every builder's files it looked for, and what the project holds.
    expect(result.stderr).toMatch(/Deployment \S+ FAILED: No .*package\.json, requirements\.txt.* or index\.html found at the top of the project: it holds README\.md\./);
    expect(result.stdout).toContain("-----> Detecting how to build the app");
  });

  it("a release that fails to start prints the app's last output lines after the reason", async () => {
    const slug = newSlug();
    const crashing = project({
      "package.json": JSON.stringify({ name: "t", version: "1.0.0" }),
      "server.js": `console.log("starting"); console.error("Error: Cannot find module 'express'"); process.exit(1);`,
    });
    expect((await runCli(home, ["apps:create", slug], { cwd: crashing })).code).toBe(0);
    const result = await runCli(home, ["deploy"], { cwd: crashing });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/Failed: The app exited \(exit code 1\)[^\n]*\nThe app's last output before it stopped:\n(starting\n[^\n]*Cannot find module 'express'|[^\n]*Cannot find module 'express'[^\n]*\nstarting)\n/);
    expect(result.stderr).toMatch(/Deployment \S+ FAILED: The app exited \(exit code 1\)/);
    // apps:info repeats them under the failed deployment.
    const info = await runCli(home, ["apps:info"], { cwd: crashing });
    expect(info.stdout).toMatch(/The last output of \S+ before it stopped:\n[\s\S]*  Error: Cannot find module 'express'/);
  });

  it("--no-follow exits once the deployment is queued", async () => {
    const result = await runCli(home, ["deploy", "--no-follow"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Deploying to .* \(deployment \S+\)/);
  });
});

describe("GitHub deploys and rollback", () => {
  const serve = (text: string) => `require("http").createServer((q, s) => s.end(${JSON.stringify(text)})).listen(process.env.PORT);`;
  const files = (text: string) => ({ "package.json": JSON.stringify({ name: "t", version: "1.0.0" }), "server.js": serve(text) });

  it("deploy --repo --branch streams the build from GitHub; rollback starts the previous release again", async () => {
    const repo = `octo/cli-${process.pid}`;
    github.create(repo, files("main one"));
    github.commit(repo, files("feature two"), "second", "feature");
    const slug = newSlug();
    const dir = project({});
    expect((await runCli(home, ["apps:create", slug, "--repo", repo], { cwd: dir })).code).toBe(0);

    const first = await runCli(home, ["deploy", "--github"], { cwd: dir });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain(`Deploying ${repo}#main to ${slug}`);
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toBe("main one");

    const second = await runCli(home, ["deploy", "--repo", repo, "--branch", "feature"], { cwd: dir });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain(`Deploying ${repo}#feature to ${slug}`);
    expect((await requestApp(server.url, `${slug}.localhost`)).body).toBe("feature two");

    const missing = await runCli(home, ["deploy", "--repo", repo, "--branch", "nope"], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/FAILED/);

    const rollback = await runCli(home, ["rollback"], { cwd: dir });
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(rollback.stdout).toMatch(/Rolling .* back to the release of \S+/);
    await waitFor(async () => (await requestApp(server.url, `${slug}.localhost`)).body === "main one", 30_000, "the rolled-back release");
  });

  it("refuses a folder together with --repo, and --branch without a repository", async () => {
    const both = await runCli(home, ["deploy", "somewhere", "--repo", "a/b", "--app", "x"]);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain("not both");
    const branch = await runCli(home, ["deploy", "--branch", "main", "--app", "x"]);
    expect(branch.code).toBe(1);
    expect(branch.stderr).toContain("--branch goes with --repo");
  });
});

describe("upload limits", () => {
  it("a zip over the account's upload limit is refused before it is sent, saying both sizes", async () => {
    const small = await startServer({ DEFAULT_MAX_UPLOAD_BYTES: String(64 * 1024), DEFAULT_REQUESTS_PER_MINUTE: "100000" });
    try {
      const owner = new Client(small.url);
      await owner.signup();
      const other = cliHome();
      await login(other, small.url, owner);
      const dir = project({ "index.html": "<h1>big</h1>" });
      fs.writeFileSync(path.join(dir, "big.bin"), crypto.randomBytes(256 * 1024)); // incompressible
      expect((await runCli(other, ["apps:create", `big-${process.pid}`], { cwd: dir })).code).toBe(0);
      const result = await runCli(other, ["deploy"], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).not.toContain("Could not reach");
      expect(result.stderr).toMatch(/Error: The zip is 256\.\d KB, over your upload limit of 64\.0 KB/);
    } finally {
      await small.close();
    }
  });
});

describe("quota", () => {
  it("prints the limits and usage, JSON with --json", async () => {
    const json = JSON.parse((await runCli(home, ["quota", "--json"])).stdout);
    expect(json).toMatchObject({ maxApps: 20, usage: { apps: expect.any(Number) } });
    expect((await runCli(home, ["quota"])).stdout).toMatch(/apps\s+\d+\s+20/);
  });
});
