// An app sandboxed by the local runtime driver, probed from inside as an attacker would: the platform's
// files, environment and services, another app, the host's own addresses; and the limits. Real processes,
// real namespaces and firewall: this needs root, as the platform does (the refusal otherwise is tested in
// runtime-partial.test.ts).
import { createServer, type Server } from "node:http";
import { rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalDriver } from "../../server/platform/runtime/local/driver.ts";
import type { Instance, RuntimeDriver } from "../../server/platform/runtime/types.ts";
import { LIMITS, collectOutput, isRoot, lastJson, makeDataDir, makeRelease, waitForHttp } from "./runtime-helpers.ts";

// Reads, writes and connections an attacker would try; prints one JSON line of outcomes (an error code
// or what was obtained).
const PROBE = `
const fs = require("fs"), net = require("net");
const targets = JSON.parse(process.env.TARGETS);
const read = (p) => { try { return "READ " + fs.readFileSync(p, "utf8").slice(0, 200); } catch (e) { return e.code; } };
const list = (p) => { try { return "LISTED " + fs.readdirSync(p).join(","); } catch (e) { return e.code; } };
const write = (p) => { try { fs.writeFileSync(p, "x"); return "WROTE"; } catch (e) { return e.code; } };
const connect = (host, port) => new Promise((resolve) => {
  const socket = net.connect({ host, port, timeout: 1500 });
  socket.once("connect", () => { socket.destroy(); resolve("CONNECTED"); });
  socket.once("timeout", () => { socket.destroy(); resolve("TIMEOUT"); });
  socket.once("error", (e) => resolve(e.code));
});
(async () => {
  const status = fs.readFileSync("/proc/self/status", "utf8");
  const field = (name) => new RegExp("^" + name + ":\\\\s+(.*)$", "m").exec(status)[1].trim();
  // The secrets travel reversed, or the probe's own environment (TARGETS) would contain them.
  const secrets = targets.reversedSecrets.map((s) => [...s].reverse().join(""));
  const environs = fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p)).map((p) => read("/proc/" + p + "/environ")).join("\\n");
  const result = {
    uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(),
    capEff: field("CapEff"), capPrm: field("CapPrm"), capBnd: field("CapBnd"), noNewPrivs: field("NoNewPrivs"),
    env: Object.keys(process.env).sort(),
    visibleProcesses: fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p)).length,
    environsMentionSecrets: secrets.some((s) => environs.includes(s)),
    reads: Object.fromEntries(targets.reads.map((p) => [p, read(p)])),
    lists: Object.fromEntries(targets.lists.map((p) => [p, list(p)])),
    writes: Object.fromEntries(targets.writes.map((p) => [p, write(p)])),
    connects: {},
  };
  await Promise.all(targets.connects.map(async ([host, port]) => { result.connects[host + ":" + port] = await connect(host, port); }));
  console.log(JSON.stringify(result));
})();
`;

const VICTIM = `
process.on("SIGTERM", () => process.exit(0));
require("http").createServer((req, res) => res.end("victim " + process.env.VICTIM_SECRET.length)).listen(process.env.PORT, process.env.HOST);
`;

interface ProbeResult {
  uid: number;
  gid: number;
  groups: number[];
  capEff: string;
  capPrm: string;
  capBnd: string;
  noNewPrivs: string;
  env: string[];
  visibleProcesses: number;
  environsMentionSecrets: boolean;
  reads: Record<string, string>;
  lists: Record<string, string>;
  writes: Record<string, string>;
  connects: Record<string, string>;
}

const PLATFORM_SECRET = "platform-secret-7d1c9e";
const VICTIM_SECRET = "victim-secret-52aa0b";

describe.runIf(isRoot)("local runtime sandbox, probed from inside an app", () => {
  let dataDir: string;
  let driver: RuntimeDriver;
  let platform: Server;
  let platformPort: number;
  let victim: Instance;
  let victimRelease: string;
  let attackerRelease: string;
  let probe: ProbeResult;

  beforeAll(async () => {
    process.env.SLIPWAY_TEST_PLATFORM_SECRET = PLATFORM_SECRET; // must never reach an app
    dataDir = makeDataDir();
    writeFileSync(path.join(dataDir, "slipway.db"), "the platform's database", { mode: 0o644 });
    platform = createServer((req, res) => res.end("platform"));
    await new Promise<void>((resolve) => platform.listen(0, "0.0.0.0", resolve));
    platformPort = (platform.address() as { port: number }).port;

    driver = await createLocalDriver({ dataDir, allowPartial: false });
    victimRelease = makeRelease(dataDir, "victim", { "server.js": VICTIM });
    victim = await driver.start({
      appKey: "victim",
      instanceId: "victim-1",
      workDir: victimRelease,
      argv: ["/usr/bin/node", "server.js"],
      env: { VICTIM_SECRET },
      limits: LIMITS,
      onOutput: () => {},
    });
    expect(await waitForHttp(`http://${victim.target.host}:${victim.target.port}/`)).toBe(`victim ${VICTIM_SECRET.length}`);

    attackerRelease = makeRelease(dataDir, "attacker", { "probe.js": PROBE });
    const hostVethAddress = victim.target.host.replace(/\d+$/, (d) => String(Number(d) - 1)); // the victim's host side
    const hostAddresses = Object.values(os.networkInterfaces()).flat().filter((a) => a && a.family === "IPv4" && !a.internal).map((a) => a!.address);
    const targets = {
      reversedSecrets: [VICTIM_SECRET, PLATFORM_SECRET].map((s) => [...s].reverse().join("")),
      reads: [
        path.join(dataDir, "slipway.db"),
        path.join(victimRelease, "server.js"),
        `/proc/${victim.pid}/environ`,
        "/etc/shadow",
        "/etc/passwd",
        "/root/.bashrc",
        path.join(process.cwd(), "package.json"),
      ],
      lists: [dataDir, "/work", "/root", "/home", "/run"],
      writes: ["/usr/lib/x", "/etc/x", "/x", "/var/x", path.join(dataDir, "x"), "/app/written", "/tmp/written"],
      connects: [
        ["127.0.0.1", 5432],
        ["127.0.0.1", 6379],
        ["127.0.0.1", platformPort],
        ...hostAddresses.map((address) => [address, platformPort]),
        ...hostAddresses.map((address) => [address, 5432]),
        [hostVethAddress, platformPort],
        [victim.target.host, victim.target.port],
        ["10.201.250.2", 8000],
        ["169.254.169.254", 80],
        ["registry.npmjs.org", 443],
      ],
    };
    const output = collectOutput();
    const result = await driver.run({
      appKey: "attacker",
      workDir: attackerRelease,
      argv: ["/usr/bin/node", "probe.js"],
      env: { TARGETS: JSON.stringify(targets) },
      limits: LIMITS,
      onOutput: output.sink,
      timeoutMs: 20_000,
    });
    expect(result, output.text()).toMatchObject({ code: 0, timedOut: false });
    probe = lastJson<ProbeResult>(output);
  }, 60_000);

  afterAll(async () => {
    delete process.env.SLIPWAY_TEST_PLATFORM_SECRET;
    await driver?.close();
    await new Promise((resolve) => platform?.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs the app under its own uid, with no capabilities and no new privileges", () => {
    expect(probe.uid).toBeGreaterThanOrEqual(200_000);
    expect(probe.gid).toBe(probe.uid);
    expect(probe.groups.filter((g) => g !== probe.gid)).toEqual([]);
    expect([probe.capEff, probe.capPrm, probe.capBnd]).toEqual(["0000000000000000", "0000000000000000", "0000000000000000"]);
    expect(probe.noNewPrivs).toBe("1");
  });

  it("gives each app a uid of its own", async () => {
    const output = collectOutput();
    await driver.run({ appKey: "victim", workDir: victimRelease, argv: ["/usr/bin/node", "-p", "process.getuid()"], env: {}, limits: LIMITS, onOutput: output.sink, timeoutMs: 10_000 });
    const victimUid = Number(output.text("stdout").trim());
    expect(victimUid).toBeGreaterThanOrEqual(200_000);
    expect(victimUid).not.toBe(probe.uid);
  });

  it("shows the app only the variables it was given, never the platform's", () => {
    expect(probe.env).toEqual(["HOME", "HOST", "PATH", "PWD", "TARGETS"]);
    expect(probe.environsMentionSecrets).toBe(false);
  });

  it("hides the platform's data, other apps' files and processes, and the host", () => {
    for (const [file, outcome] of Object.entries(probe.reads)) expect(outcome, file).toMatch(/^(ENOENT|EACCES)$/);
    for (const [dir, outcome] of Object.entries(probe.lists)) expect(outcome, dir).toMatch(/^(ENOENT|EACCES)$/);
    expect(probe.visibleProcesses).toBeLessThanOrEqual(3); // bwrap's pid 1, the probe, maybe a helper thread's view
  });

  it("lets the app write only to /app and its private /tmp", () => {
    const { "/app/written": app, "/tmp/written": tmp, ...others } = probe.writes;
    expect([app, tmp]).toEqual(["WROTE", "WROTE"]);
    for (const [file, outcome] of Object.entries(others)) expect(outcome, file).toMatch(/^(EROFS|ENOENT|EACCES)$/);
  });

  it("lets the app reach no service of the host and no other app", () => {
    const { "registry.npmjs.org:443": outside, ...inside } = probe.connects;
    for (const [target, outcome] of Object.entries(inside)) expect(outcome, target).not.toBe("CONNECTED");
    expect(Object.keys(inside).length).toBeGreaterThanOrEqual(9);
    expect(outside, "the outside network through NAT").toBe("CONNECTED");
  });

  it("still lets the platform reach the app at its namespace address", async () => {
    expect(victim.target.host).toMatch(/^10\.201\.\d+\.\d+$/);
    expect(await waitForHttp(`http://${victim.target.host}:${victim.target.port}/`)).toBe(`victim ${VICTIM_SECRET.length}`);
  });

  it("keeps a fork bomb under the pids limit", async () => {
    const output = collectOutput();
    const bomb = `
      const { spawn } = require("child_process");
      let started = 0, refused = 0;
      for (let i = 0; i < 200; i++) {
        const child = spawn("/usr/bin/sleep", ["30"]);
        child.on("spawn", () => started++);
        child.on("error", () => refused++);
      }
      setTimeout(() => { console.log(JSON.stringify({ started, refused })); process.exit(0); }, 1500);
    `;
    const result = await driver.run({ appKey: "attacker", workDir: attackerRelease, argv: ["/usr/bin/node", "-e", bomb], env: {}, limits: { ...LIMITS, pids: 40 }, onOutput: output.sink, timeoutMs: 15_000 });
    expect(result.code, output.text()).toBe(0);
    const { started, refused } = lastJson<{ started: number; refused: number }>(output);
    expect(started).toBeLessThan(40);
    expect(refused).toBeGreaterThan(100);
  });

  it("OOM-kills an app past its memory limit", async () => {
    const hog = `const kept = []; for (let i = 0; i < 100; i++) { kept.push(Buffer.alloc(16 * 1024 * 1024, 1)); } console.log("survived");`;
    const output = collectOutput();
    const result = await driver.run({ appKey: "attacker", workDir: attackerRelease, argv: ["/usr/bin/node", "-e", hog], env: {}, limits: { ...LIMITS, memoryBytes: 128 * 1024 * 1024 }, onOutput: output.sink, timeoutMs: 15_000 });
    expect(output.text()).not.toContain("survived");
    expect(result).toMatchObject({ signal: "SIGKILL", oomKilled: true, timedOut: false });
  });

  it("holds the app to its CPU share", async () => {
    const busy = `const start = Date.now(); while (Date.now() - start < 1000); const { user, system } = process.cpuUsage(); console.log(JSON.stringify({ cpuMs: (user + system) / 1000 }));`;
    const output = collectOutput();
    await driver.run({ appKey: "attacker", workDir: attackerRelease, argv: ["/usr/bin/node", "-e", busy], env: {}, limits: { ...LIMITS, cpuPercent: 20 }, onOutput: output.sink, timeoutMs: 15_000 });
    // 20% of a core for one second of wall time, plus node's start-up (run before the loop's clock starts).
    expect(lastJson<{ cpuMs: number }>(output).cpuMs).toBeLessThan(600);
  });
});
