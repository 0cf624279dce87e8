// The local runtime driver's life cycle with real sandboxed processes: output, ports side by side, stop
// (graceful, then SIGKILL to the whole tree), run() time limit and abort, removeApp and reap() leaving
// nothing on the host, an instance outliving a killed platform and adopted by the next. Needs root, as the platform
// does.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalDriver } from "../../server/platform/runtime/local/driver.ts";
import type { RuntimeDriver } from "../../server/platform/runtime/types.ts";
import { LIMITS, collectOutput, isRoot, lastJson, leftovers, leftoversOf, makeDataDir, makeRelease, processesOf, slotOf, waitForHttp } from "./runtime-helpers.ts";

const SERVER = `
const name = process.argv[2] || "app";
if (process.env.IGNORE_SIGTERM) process.on("SIGTERM", () => console.log("ignoring SIGTERM"));
else process.on("SIGTERM", () => { console.log("bye"); process.exit(0); });
if (process.env.SPAWN_CHILD) require("child_process").spawn("/usr/bin/sleep", ["600"], { detached: true, stdio: "ignore" });
require("http").createServer((req, res) => { console.log("request " + req.url); res.end(name + " " + process.getuid()); }).listen(process.env.PORT, process.env.HOST, () => {
  console.log("listening on " + process.env.PORT);
  console.error("a line on stderr");
});
`;

const exists = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.runIf(isRoot)("local runtime driver", () => {
  let dataDir: string;
  let driver: RuntimeDriver;
  let release: string;

  beforeAll(async () => {
    dataDir = makeDataDir();
    driver = await createLocalDriver({ dataDir, allowPartial: false });
    await driver.reap();
    release = makeRelease(dataDir, "web", { "server.js": SERVER });
  });

  afterAll(async () => {
    // close() would leave web instances running for the next platform.
    await Promise.all(driver?.list().map((instance) => instance.stop()) ?? []);
    await driver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (appKey: string, instanceId: string, env: Record<string, string> = {}, output = collectOutput()) =>
    driver.start({ appKey, instanceId, workDir: release, argv: ["/usr/bin/node", "server.js", instanceId], env, limits: LIMITS, onOutput: output.sink });

  it("streams stdout and stderr, and stops an app gracefully with SIGTERM", async () => {
    const output = collectOutput();
    const instance = await start("web", "graceful", {}, output);
    expect(driver.list().map((i) => i.instanceId)).toContain("graceful");
    await waitForHttp(`http://${instance.target.host}:${instance.target.port}/`);
    await expect.poll(() => output.text("stderr")).toContain("a line on stderr");
    expect(output.text("stdout")).toContain(`listening on ${instance.target.port}`);
    const started = Date.now();
    await instance.stop(10_000);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await instance.exited).toMatchObject({ code: 0, signal: null });
    expect(output.text("stdout")).toContain("bye");
    expect(driver.list().map((i) => i.instanceId)).not.toContain("graceful");
  });

  it("runs the old and the new instance of an app side by side, each on its own port", async () => {
    const old = await start("web", "old");
    const next = await start("web", "new");
    expect(next.target.host).toBe(old.target.host);
    expect(next.target.port).not.toBe(old.target.port);
    expect(await waitForHttp(`http://${old.target.host}:${old.target.port}/`)).toMatch(/^old /);
    expect(await waitForHttp(`http://${next.target.host}:${next.target.port}/`)).toMatch(/^new /);
    await old.stop();
    expect(await waitForHttp(`http://${next.target.host}:${next.target.port}/`)).toMatch(/^new /);
    await next.stop();
  });

  it("SIGKILLs the whole tree after the grace period when the app ignores SIGTERM", async () => {
    const output = collectOutput();
    const instance = await start("stubborn", "stubborn", { IGNORE_SIGTERM: "1", SPAWN_CHILD: "1" }, output);
    const answer = await waitForHttp(`http://${instance.target.host}:${instance.target.port}/`);
    const uid = Number(answer.split(" ")[1]);
    expect(processesOf(uid).length).toBeGreaterThanOrEqual(2); // the app and its detached child
    const started = Date.now();
    await instance.stop(700);
    expect(Date.now() - started).toBeGreaterThanOrEqual(650);
    expect(await instance.exited).toMatchObject({ signal: "SIGKILL" });
    expect(output.text("stdout")).toContain("ignoring SIGTERM");
    expect(exists(instance.pid)).toBe(false);
    expect(processesOf(uid)).toEqual([]);
  });

  it("kills a run past its time limit, and on abort", async () => {
    const slow = { appKey: "web", workDir: release, argv: ["/usr/bin/sleep", "30"], env: {}, limits: LIMITS, onOutput: () => {} };
    let started = Date.now();
    expect(await driver.run({ ...slow, timeoutMs: 300 })).toMatchObject({ timedOut: true, aborted: false, signal: "SIGKILL" });
    expect(Date.now() - started).toBeLessThan(3000);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    started = Date.now();
    expect(await driver.run({ ...slow, timeoutMs: 30_000, signal: controller.signal })).toMatchObject({ timedOut: false, aborted: true });
    expect(Date.now() - started).toBeLessThan(3000);

    const output = collectOutput();
    const done = await driver.run({ ...slow, argv: ["/usr/bin/node", "-e", "console.log('built'); process.exit(3)"], timeoutMs: 10_000, onOutput: output.sink });
    expect(done).toMatchObject({ code: 3, signal: null, timedOut: false, aborted: false });
    expect(output.text("stdout")).toBe("built\n");
  });

  it("makes the release directory the app's own, even below a 0700 DATA_DIR", async () => {
    const output = collectOutput();
    const result = await driver.run({
      appKey: "web",
      workDir: release,
      argv: ["/usr/bin/node", "-e", "require('fs').mkdirSync('node_modules/x', { recursive: true }); console.log(require('fs').statSync('server.js').uid === process.getuid())"],
      env: {},
      limits: LIMITS,
      onOutput: output.sink,
      timeoutMs: 10_000,
    });
    expect(result.code, output.text()).toBe(0);
    expect(output.text("stdout").trim()).toBe("true");
  });

  it("runs npm inside a build and reaches the registry through NAT", async () => {
    const output = collectOutput();
    const result = await driver.run({
      appKey: "web",
      workDir: release,
      argv: ["/usr/bin/npm", "view", "left-pad", "version"],
      env: { npm_config_cache: "/tmp/.npm", npm_config_update_notifier: "false" },
      limits: LIMITS,
      onOutput: output.sink,
      timeoutMs: 60_000,
    });
    expect(result.code, output.text()).toBe(0);
    expect(output.text("stdout").trim()).toMatch(/^\d+\.\d+\.\d+$/);
  }, 70_000);

  it("removeApp leaves no process, namespace, veth, cgroup, firewall entry or claim behind", async () => {
    const instance = await start("removed", "removed-1", { SPAWN_CHILD: "1" });
    const answer = await waitForHttp(`http://${instance.target.host}:${instance.target.port}/`);
    const uid = Number(answer.split(" ")[1]);
    const slot = slotOf(instance.target.host);
    expect(leftovers(slot).length).toBeGreaterThanOrEqual(4);
    await driver.removeApp("removed");
    expect(leftoversOf(slot, dataDir)).toEqual([]);
    expect(processesOf(uid)).toEqual([]);
    expect(driver.list().map((i) => i.appKey)).not.toContain("removed");
  });

  it("never gives two platforms of different DATA_DIRs the same slot, uid or names, even at the same moment", async () => {
    const dirs = [makeDataDir(), makeDataDir(), makeDataDir()];
    const drivers = await Promise.all(dirs.map((dir) => createLocalDriver({ dataDir: dir, allowPartial: false })));
    const releases = dirs.map((dir) => makeRelease(dir, "same-key", { "server.js": SERVER }));
    const instances = await Promise.all(
      drivers.map((d, i) =>
        d.start({ appKey: "same-key", instanceId: `p${i}`, workDir: releases[i], argv: ["/usr/bin/node", "server.js", `p${i}`], env: {}, limits: LIMITS, onOutput: () => {} }),
      ),
    );
    const answers = await Promise.all(instances.map((i) => waitForHttp(`http://${i.target.host}:${i.target.port}/`)));
    expect(answers.map((a) => a.split(" ")[0])).toEqual(["p0", "p1", "p2"]);
    expect(new Set(instances.map((i) => i.target.host)).size).toBe(3);
    expect(new Set(answers.map((a) => a.split(" ")[1])).size).toBe(3); // three uids
    await Promise.all(instances.map((instance) => instance.stop()));
    await Promise.all(drivers.map((d) => d.close()));
    instances.forEach((instance, i) => expect(leftoversOf(slotOf(instance.target.host), dirs[i])).toEqual([]));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A platform process on a DATA_DIR of its own that started one app instance, killed with SIGKILL. */
  async function killedPlatform() {
    const otherDataDir = makeDataDir();
    const otherRelease = makeRelease(otherDataDir, "left-behind", { "server.js": SERVER });
    const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "fixtures/runtime-platform.ts"), otherDataDir, otherRelease], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString()));
      child.once("exit", (code) => reject(new Error(`the platform process exited (${code})`)));
    });
    const { target, pid } = JSON.parse(line) as { target: { host: string; port: number }; pid: number };
    const uid = Number((await waitForHttp(`http://${target.host}:${target.port}/`)).split(" ")[1]);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    return { otherDataDir, otherRelease, target, pid, uid, slot: slotOf(target.host) };
  }

  it("reap() frees what a killed platform process of the same DATA_DIR left behind, its running instance included", async () => {
    const { otherDataDir, target, uid, slot } = await killedPlatform();
    // The instance outlives its platform.
    expect(await waitForHttp(`http://${target.host}:${target.port}/`)).toMatch(/^app /);
    expect(leftovers(slot).length).toBeGreaterThanOrEqual(4);

    // A live platform of another DATA_DIR leaves it alone; the next one on the same DATA_DIR reaps it.
    await driver.reap();
    expect(processesOf(uid)).not.toEqual([]);
    expect(leftovers(slot).length).toBeGreaterThanOrEqual(4);
    const next = await createLocalDriver({ dataDir: otherDataDir, allowPartial: false });
    await next.reap();
    expect(processesOf(uid)).toEqual([]);
    expect(leftoversOf(slot, otherDataDir)).toEqual([]);
    await next.close();
    rmSync(otherDataDir, { recursive: true, force: true });
  });

  it("adopts what a killed platform left running, if it runs what a start would: the same process, its output (that of the time between too) followed again", async () => {
    const { otherDataDir, otherRelease, target, pid, uid, slot } = await killedPlatform();
    // Output written while no platform runs waits in the instance's pipes.
    expect(await waitForHttp(`http://${target.host}:${target.port}/while-down`)).toMatch(/^app /);
    const next = await createLocalDriver({ dataDir: otherDataDir, allowPartial: false });
    const output = collectOutput();
    const spec = { appKey: "left-behind", instanceId: "unused", index: 1, workDir: otherRelease, argv: ["/usr/bin/node", "server.js"], env: {}, limits: LIMITS, onOutput: output.sink };
    expect(await next.adopt!({ ...spec, env: { CHANGED: "1" } })).toBeNull();
    expect(await next.adopt!({ ...spec, index: 2 })).toBeNull();
    const adopted = (await next.adopt!(spec))!;
    expect(adopted).toMatchObject({ instanceId: "left-behind-1", pid, target });
    expect(await next.adopt!(spec)).toBeNull(); // taken
    await next.reap(); // keeps what it adopted, its slot included
    expect(next.list()).toEqual([adopted]);
    expect(await waitForHttp(`http://${target.host}:${target.port}/adopted`)).toMatch(/^app /);
    await expect.poll(() => output.text("stdout")).toContain("request /adopted");
    expect(output.text("stdout")).toContain("request /while-down");

    await adopted.stop();
    expect(await adopted.exited).toMatchObject({ code: 0, signal: null });
    expect(output.text("stdout")).toContain("bye");
    expect(processesOf(uid)).toEqual([]);
    await next.removeApp("left-behind");
    expect(leftoversOf(slot, otherDataDir)).toEqual([]);
    await next.close();
    rmSync(otherDataDir, { recursive: true, force: true });
  });

  it("ends whatever its command left behind once the command exits", async () => {
    const orphan = `require("child_process").spawn("/usr/bin/sleep", ["600"], { detached: true, stdio: "inherit" }); setTimeout(() => process.exit(3), 100);`;
    const workDir = makeRelease(dataDir, "orphan", { "main.js": orphan });
    const instance = await driver.start({ appKey: "orphan", instanceId: "orphan-1", process: "worker", workDir, argv: ["/usr/bin/node", "main.js"], env: {}, limits: LIMITS, onOutput: () => {} });
    expect(await instance.exited).toMatchObject({ code: 3 });
    expect(driver.list()).not.toContain(instance);
    await driver.removeApp("orphan");
  });
});
